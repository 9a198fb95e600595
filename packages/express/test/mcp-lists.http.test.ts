import { afterAll, beforeAll } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthMiddleware, errorHandler, type AuthMiddleware } from '../src/index.js';
import { LISTS_CONFIG, LISTS_ENV, describeFilteredLists, serveLists } from './support/mcp-lists.js';

// mcp.filter_lists with the official SDK on both sides, behind Express: the McpServer's list
// answers (JSON and SSE) hold only what the caller may call, and the client's calls agree with
// them. The same cases run behind Fastify (packages/fastify/test/mcp-lists.http.test.ts).

const logger = createCaptureLogger();
let server: Server;
let origin: string;
let auth: AuthMiddleware;

beforeAll(async () => {
  auth = await createAuthMiddleware(LISTS_CONFIG, { logger, env: LISTS_ENV });
  const app = express();
  app.use(auth.access);
  app.post('/mcp', (req, res) => serveLists(req, res, req.body));
  app.use(errorHandler({ logger }));
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await auth.close();
});

describeFilteredLists(() => origin);
