import express, { type Router } from 'express';
import swaggerUi, { type SwaggerUiOptions } from 'swagger-ui-express';

const OPTIONS: SwaggerUiOptions = {
  customSiteTitle: 'authlayer reference service',
  // A fixed document URL: swagger-ui-express then ignores a `?url=` from the page's address.
  swaggerUrl: '/openapi.json',
  swaggerOptions: { persistAuthorization: false, displayRequestDuration: true },
};

/**
 * `/docs`: Swagger UI over `/openapi.json`. Its Authorize control offers the document's security
 * schemes, so a key or token entered there is sent on "Try it out".
 */
export function docsRouter(): Router {
  const router = express.Router();
  router.use('/docs', swaggerUi.serveFiles(undefined, OPTIONS), swaggerUi.setup(undefined, OPTIONS));
  return router;
}
