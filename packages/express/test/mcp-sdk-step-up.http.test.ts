import { afterAll, beforeAll } from '@jest/globals';
import { createCaptureLogger, type OidcProvider } from '@authlayer/testkit';
import express from 'express';
import { createAuthMiddleware, errorHandler, type AuthMiddleware } from '../src/index.js';
import { listen } from './support/listen.js';
import { serveNotes } from './support/notes-server.js';
import { describeStepUp, startStepUpProvider, stepUpConfig } from './support/step-up-cases.js';

// The SDK 1.x client stepping up against the required-only challenge, behind Express. The cases
// are shared with Fastify's (support/step-up-cases.ts).

let oidc: OidcProvider;
let origin: string;
let closeServer: () => Promise<void>;
let auth: AuthMiddleware;

beforeAll(async () => {
  oidc = await startStepUpProvider();
  const app = express();
  ({ origin, close: closeServer } = await listen(app));
  auth = await createAuthMiddleware(stepUpConfig(oidc, origin), { logger: createCaptureLogger() });
  app.use(auth.access); // also answers the RFC 9728 document
  app.post('/mcp', (req, res) => serveNotes(req, res, req.body));
  app.use(errorHandler());
});

afterAll(async () => {
  await closeServer();
  await auth.close();
  await oidc.close();
});

describeStepUp(() => ({ origin, oidc }));
