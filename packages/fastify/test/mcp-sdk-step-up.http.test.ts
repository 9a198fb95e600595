import { afterAll, beforeAll } from '@jest/globals';
import { createCaptureLogger, type OidcProvider } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveNotes } from '../../express/test/support/notes-server.js';
import { describeStepUp, startStepUpProvider, stepUpConfig } from '../../express/test/support/step-up-cases.js';
import authlayer from '../src/index.js';

// The SDK 1.x client stepping up against the required-only challenge, behind Fastify: the
// McpServer and its StreamableHTTPServerTransport write on reply.raw (a hijacked reply). The cases
// are Express's own (packages/express/test/support/step-up-cases.ts): one fixture, both adapters.

let oidc: OidcProvider;
let origin: string;
let server: Server;
let app: FastifyInstance;

beforeAll(async () => {
  oidc = await startStepUpProvider();
  // The resource identifier names the port, so the server listens before the plugin is registered.
  server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = Fastify({ serverFactory: (handler) => server.on('request', handler) });
  await app.register(authlayer, { config: stepUpConfig(oidc, origin), logger: createCaptureLogger() });
  app.post('/mcp', async (request, reply) => {
    reply.hijack();
    await serveNotes(request.raw, reply.raw, request.body);
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await oidc.close();
});

describeStepUp(() => ({ origin, oidc }));
