import { afterAll, beforeAll } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { LISTS_CONFIG, LISTS_ENV, describeFilteredLists, serveLists } from '../../express/test/support/mcp-lists.js';
import authlayer from '../src/index.js';

// mcp.filter_lists with the official SDK on both sides, behind Fastify: the McpServer and its
// StreamableHTTPServerTransport write on reply.raw (a hijacked reply), and the list answers (JSON
// and SSE) hold only what the caller may call. The cases and the table are Express's own
// (packages/express/test/support/mcp-lists.ts): one fixture, both adapters.

let app: FastifyInstance;
let origin: string;

beforeAll(async () => {
  app = Fastify();
  await app.register(authlayer, { config: LISTS_CONFIG, env: LISTS_ENV, logger: createCaptureLogger() });
  app.post('/mcp', async (request, reply) => {
    reply.hijack();
    await serveLists(request.raw, reply.raw, request.body);
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
});

describeFilteredLists(() => origin);
