import express, { type Router } from 'express';
import swaggerUi from 'swagger-ui-express';

/**
 * `/docs`: Swagger UI over `/openapi.json`. Its Authorize control offers the document's security
 * schemes, so a key or token entered there is sent on "Try it out".
 */
export function docsRouter(): Router {
  const router = express.Router();
  router.use(
    '/docs',
    swaggerUi.serveFiles(undefined, { swaggerUrl: '/openapi.json' }),
    swaggerUi.setup(undefined, {
      customSiteTitle: 'authlayer reference service',
      swaggerOptions: { url: '/openapi.json', persistAuthorization: false, displayRequestDuration: true },
    }),
  );
  return router;
}
