import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthMiddleware, errorHandler, type AuthMiddleware } from '../src/index.js';

// mcp.filter_lists with the official SDK on both sides: the McpServer's tools/list answer (JSON
// and SSE) holds only the tools the caller may call, and the client's calls agree with it.

const KEYS = { admin: 'admin-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
const logger = createCaptureLogger();
let server: Server;
let origin: string;
let auth: AuthMiddleware;

function mcpServer(): McpServer {
  const mcp = new McpServer({ name: 'files', version: '1.0.0' });
  for (const name of ['get_forecast', 'admin_reset', 'admin_purge', 'report', 'secret']) {
    mcp.registerTool(name, { description: name }, () => ({ content: [{ type: 'text', text: `${name} done` }] }));
  }
  return mcp;
}

beforeAll(async () => {
  const app = express();
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'api_key',
        api_keys: {
          keys: [
            { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
            { name: 'plain', env_var: 'PLAIN_KEY' },
          ],
        },
      },
      mcp: { endpoint: '/mcp', filter_lists: true },
      access: {
        'POST /mcp': 'authenticated',
        'MCP tools/call get_forecast': 'authenticated',
        'MCP tools/call admin_*': { roles: ['admin'] },
        'MCP tools/call report': { scopes: ['reports:read'] },
        'MCP tools/call *': 'deny',
      },
    },
    { logger, env: { ADMIN_KEY: KEYS.admin, PLAIN_KEY: KEYS.plain } },
  );
  app.use(auth.access);
  app.post('/mcp', async (req, res) => {
    const json = req.headers['x-answer'] === 'json';
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
    const mcp = mcpServer();
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.use(errorHandler({ logger }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await auth.close();
});

async function clientFor(key: string, answer: 'json' | 'sse'): Promise<Client> {
  const client = new Client({ name: 'lists-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    requestInit: { headers: { 'x-api-key': key, 'x-answer': answer } },
  });
  await client.connect(transport);
  return client;
}

describe.each(['json', 'sse'] as const)('a filtered tools/list (%s answers)', (answer) => {
  it('shows an admin the tools it may call, and a scope-only refusal with its scopes', async () => {
    const client = await clientFor(KEYS.admin, answer);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['get_forecast', 'admin_reset', 'admin_purge', 'report']);
    expect(tools.find((tool) => tool.name === 'report')?._meta).toEqual({ 'authlayer/scopes': ['reports:read'] });
    expect(tools.find((tool) => tool.name === 'get_forecast')?._meta).toBeUndefined();
    await client.close();
  });

  it('shows a plain caller only what it may call, and its calls agree with the list', async () => {
    const client = await clientFor(KEYS.plain, answer);
    const { tools } = await client.listTools();
    const listed = tools.map((tool) => tool.name);
    expect(listed).toEqual(['get_forecast', 'report']);
    for (const name of ['get_forecast', 'admin_reset', 'admin_purge', 'secret']) {
      const called = await client.callTool({ name }).then(
        () => true,
        () => false,
      );
      expect(called).toBe(listed.includes(name));
    }
    await client.close();
  });
});
