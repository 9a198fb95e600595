import express, { type RequestHandler, type Router } from 'express';
import swaggerUi, { type SwaggerUiOptions } from 'swagger-ui-express';

const OPTIONS: SwaggerUiOptions = {
  customSiteTitle: 'authlayer reference service',
  // The page is this service's, not Swagger's: no stock top bar with its logo and URL box.
  customCss: '.swagger-ui .topbar { display: none }',
  // A fixed document URL: swagger-ui-express then ignores a `?url=` from the page's address.
  swaggerUrl: '/openapi.json',
  // validatorUrl null: the page never loads the public validator at validator.swagger.io.
  swaggerOptions: { persistAuthorization: false, displayRequestDuration: true, validatorUrl: null },
};

/**
 * What `/docs/` may serve: our page, its generated init script, and the assets that page loads.
 * Everything else of swagger-ui-dist (its stock index.html, which loads the petstore example,
 * package.json, source maps) falls through to the JSON 404.
 */
const ASSETS = new Set([
  '/swagger-ui.css',
  '/swagger-ui-bundle.js',
  '/swagger-ui-standalone-preset.js',
  '/favicon-32x32.png',
  '/favicon-16x16.png',
]);
const PAGE = '/';
const INIT = '/swagger-ui-init.js';

/**
 * `/docs`: Swagger UI over `/openapi.json`. Its Authorize control offers the document's security
 * schemes, so a key or token entered there is sent on "Try it out". GET and HEAD only.
 */
export function docsRouter(): Router {
  const [init] = swaggerUi.serveFiles(undefined, OPTIONS) as RequestHandler[];
  // Ranges off: the assets are small, and serve-static's 416 is one more error path to get wrong.
  const [, assets] = swaggerUi.serveWithOptions({
    acceptRanges: false,
    redirect: false,
    index: false,
  }) as RequestHandler[];
  const page = swaggerUi.setup(undefined, OPTIONS);
  const router = express.Router();
  router.use('/docs', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next('router');
    if (req.path === PAGE && !req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, '/docs/');
    if (req.path === PAGE) return page(req, res, next);
    if (req.path === INIT) return init!(req, res, next);
    if (ASSETS.has(req.path)) return assets!(req, res, next);
    next('router');
  });
  return router;
}
