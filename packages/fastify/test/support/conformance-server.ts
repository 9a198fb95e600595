import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { parseYaml } from '@authlayer/core';
import { createAuthMiddleware, errorHandler } from '@authlayer/express';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import Fastify from 'fastify';
import { once } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import authlayer from '../../src/index.js';

/** The adapters the conformance runs cover. */
export const ADAPTERS = ['express', 'fastify'] as const;
export type Adapter = (typeof ADAPTERS)[number];

/** A fixture server listening on loopback. */
export interface ConformanceServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  close(): Promise<void>;
}

/** The `auth` section of the docs' server: JWTs of the provider's key set, DPoP allowed; `extra` under `jwt`. */
export const jwtYaml = (jwks: { jwksUrl: string; issuer: string }, extra = '') => `
auth:
  mode: jwt
  jwt:
    jwks_url: ${jwks.jwksUrl}
    issuer: ${jwks.issuer}
    algorithms: [RS256]
    dpop: allowed
${extra}`;

/**
 * The authlayer config of the fixture: the docs' shape (JWT from a JWKS, `resource`, `mcp`) with
 * the scope pairs of the conformance suite's server fixture contract (SEP-2350 scenario): each
 * operation needs its method's scope and its own, the template's formed from its `{id}`.
 */
export const conformanceYaml = (jwks: { jwksUrl: string; issuer: string }, identifier: string, mcp = '') => `
${jwtYaml(jwks)}
resource:
  identifier: ${identifier}
mcp:
  endpoint: /mcp
${mcp}
access:
  "POST /mcp": authenticated
  "MCP tools/call": { scopes: ["mcp:conformance:tools:call"] }
  "MCP tools/call test_simple_text": { scopes: ["mcp:conformance:tools:test_simple_text"] }
  "MCP resources/read": { scopes: ["mcp:conformance:resources:read"] }
  "MCP resources/read test://static-text": { scopes: ["mcp:conformance:resources:static"] }
  "MCP resources/read test://template/{id}/data": { scopes: ["mcp:conformance:resources:template:{id}"] }
  "MCP prompts/get": { scopes: ["mcp:conformance:prompts:get"] }
  "MCP prompts/get test_simple_prompt": { scopes: ["mcp:conformance:prompts:test_simple_prompt"] }
`;

/** Every scope the fixture's operations need: the suite's "full" token. */
export const FULL_SCOPE = [
  'mcp:conformance:tools:call',
  'mcp:conformance:tools:test_simple_text',
  'mcp:conformance:resources:read',
  'mcp:conformance:resources:static',
  'mcp:conformance:resources:template:123',
  'mcp:conformance:prompts:get',
  'mcp:conformance:prompts:test_simple_prompt',
].join(' ');

/** The suite's fixture primitives, answered as its scenarios expect them. */
function fixtureServer(): McpServer {
  const server = new McpServer({ name: 'authlayer-conformance', version: '1.0.0' });
  server.registerTool('test_simple_text', { description: 'a simple text' }, () => ({
    content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
  }));
  server.registerResource('static-text', 'test://static-text', { mimeType: 'text/plain' }, (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  const template = new ResourceTemplate('test://template/{id}/data', { list: undefined });
  server.registerResource('template', template, { mimeType: 'application/json' }, (uri, { id }) => ({
    contents: [
      { uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, data: `Data for ID: ${id}` }) },
    ],
  }));
  server.registerPrompt('test_simple_prompt', { description: 'a simple prompt' }, () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
  }));
  return server;
}

/** Stateless, as the docs' server: a server and a transport per request. */
async function handleMcp(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const server = fixtureServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close().then(() => server.close()));
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

async function serveExpress(config: object): Promise<ConformanceServer> {
  const auth = await createAuthMiddleware(config, { logger: createCaptureLogger() });
  const app = express();
  app.use(auth.access);
  app.post('/mcp', (req, res) => void handleMcp(req, res, req.body));
  app.get('/mcp', (_req, res) => void res.status(405).set('Allow', 'POST').end());
  app.use(errorHandler());
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

async function serveFastify(config: object): Promise<ConformanceServer> {
  const app = Fastify();
  await app.register(authlayer, { config, logger: createCaptureLogger() });
  app.post('/mcp', async (request, reply) => {
    reply.hijack();
    await handleMcp(request.raw, reply.raw, request.body);
  });
  app.get('/mcp', (_request, reply) => void reply.code(405).header('allow', 'POST').send());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => app.close(),
  };
}

/** The fixture behind `adapter`, configured from the YAML text alone. */
export function serveConformance(adapter: Adapter, yaml: string): Promise<ConformanceServer> {
  const config = parseYaml(yaml) as object;
  return adapter === 'express' ? serveExpress(config) : serveFastify(config);
}

/** The fixture behind every adapter, for the resource `identifier`; `url(adapter)` is its endpoint. */
export interface ConformanceServers {
  url(adapter: Adapter): string;
  close(): Promise<void>;
}

/** Starts the fixture behind each adapter in turn, trusting the provider's key set. */
export async function serveEveryAdapter(
  jwks: { jwksUrl: string; issuer: string },
  identifier: string,
): Promise<ConformanceServers> {
  const servers = new Map<Adapter, ConformanceServer>();
  for (const adapter of ADAPTERS)
    servers.set(adapter, await serveConformance(adapter, conformanceYaml(jwks, identifier)));
  return {
    url: (adapter) => `${servers.get(adapter)!.origin}/mcp`,
    close: async () => {
      for (const server of servers.values()) await server.close();
    },
  };
}
