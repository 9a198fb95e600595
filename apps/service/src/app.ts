import { createAuthMiddleware, errorHandler, notFound, type AuthMiddlewareOptions } from '@authlayer/express';
import type { AuthConfig } from '@authlayer/core';
import express, { type Express } from 'express';
import { buildOpenApiDocument } from './openapi.js';
import { docsRouter } from './routes/docs.js';
import { invokeRouter } from './routes/invoke.js';

/**
 * Builds the reference service for a config, exactly as a user's own app would: through
 * `createAuthMiddleware` and nothing else of authlayer's insides. Never listens.
 *
 * @throws ConfigError on a bad config or missing key material
 */
export async function createApp(config: AuthConfig | object, options: AuthMiddlewareOptions = {}): Promise<Express> {
  const auth = await createAuthMiddleware(config, options);
  const document = buildOpenApiDocument(auth);
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok', auth: { mode: auth.mode, handler: auth.method } });
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  app.use(invokeRouter(auth));
  app.use(docsRouter());
  app.use(notFound());
  app.use(errorHandler(options.logger === undefined ? {} : { logger: options.logger }));
  return app;
}
