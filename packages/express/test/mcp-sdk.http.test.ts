import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createCaptureLogger, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthMiddleware, errorHandler, type AuthMiddleware } from '../src/index.js';
import { learnChallenges, StepUpProvider } from './support/mcp-step-up.js';

// The official MCP TypeScript SDK on both sides: an McpServer with StreamableHTTPServerTransport
// behind auth.access, and the SDK's Client with its client_credentials provider against a real
// OpenID provider. The client discovers the RFC 9728 metadata, gets a token, is refused a tool
// with insufficient_scope, gets a token with the challenged scope, and calls it.

let oidc: OidcProvider;
let server: Server;
let origin: string;
let auth: AuthMiddleware;
const logger = createCaptureLogger();

function mcpServer(): McpServer {
  const mcp = new McpServer({ name: 'weather', version: '1.0.0' });
  mcp.registerTool('get_forecast', { description: 'the forecast' }, (extra) => ({
    content: [{ type: 'text', text: `sunny for ${extra.authInfo?.clientId} until ${extra.authInfo?.expiresAt}` }],
  }));
  mcp.registerTool('delete_file', { description: 'deletes a file' }, () => ({
    content: [{ type: 'text', text: 'gone' }],
  }));
  return mcp;
}

beforeAll(async () => {
  // weather:read is a scope the provider knows (it grants it when asked); files:write is not.
  oidc = await startOidcProvider('RS256', 'mcp-key', { id: 'weather-agent', scope: 'weather:read', claims: {} });
  const app = express();
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  auth = await createAuthMiddleware(
    {
      auth: { mode: 'jwt', jwt: { jwks_url: oidc.jwksUri, issuer: oidc.issuer, algorithms: ['RS256'] } },
      resource: { identifier: `${origin}/mcp` },
      mcp: { endpoint: '/mcp' },
      access: {
        'GET /.well-known/oauth-protected-resource/mcp': 'public',
        'POST /mcp': { scopes: ['invoke'] },
        'MCP tools/call get_forecast': { scopes: ['weather:read'] },
        'MCP tools/call delete_file': { scopes: ['files:write'] },
        'MCP tools/call *': 'deny',
      },
    },
    { logger },
  );
  app.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => res.json(auth.resourceMetadata()?.document));
  app.use(auth.access);
  app.post('/mcp', async (req, res) => {
    // Stateless: a server and a transport per request, as the SDK's examples do.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const mcp = mcpServer();
    res.on('close', () => void transport.close().then(() => mcp.close()));
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body); // req.auth is AuthContext & AuthInfo
  });
  app.get('/mcp', (_req, res) => res.status(405).set('Allow', 'POST').end());
  app.use(errorHandler({ logger }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  server.closeAllConnections();
  await auth.close();
  await oidc.close();
});

async function connect() {
  const provider = new StepUpProvider({
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    expectedIssuer: oidc.issuer,
    scope: 'invoke',
  });
  const client = new Client({ name: 'weather-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      authProvider: provider,
      fetch: learnChallenges(provider),
    }),
  );
  return { client, provider };
}

describe('the official MCP SDK client against an MCP server behind auth.access', () => {
  it('discovers, gets a token, steps up on insufficient_scope, and calls the tool', async () => {
    const { client, provider } = await connect();
    const first = provider.tokens()?.access_token;
    expect(first).toBeDefined();
    // The first token has the route's scope only (the metadata lists no tool's scope).
    expect(provider.tokens()?.scope).toBe('invoke');
    const result = await client.callTool({ name: 'get_forecast', arguments: {} });
    expect(result.content).toEqual([
      { type: 'text', text: expect.stringMatching(new RegExp(`^sunny for ${oidc.clientId} until \\d+$`)) },
    ]);
    // The SDK asked for the challenged scopes (those it had and weather:read) and got them.
    expect(provider.tokens()?.scope).toBe('invoke weather:read');
    expect(provider.tokens()?.access_token).not.toBe(first);
    expect(oidc.paths.filter((path) => path.startsWith('/token'))).toHaveLength(2);
    await client.close();
  });

  it('stays refused for a tool whose scope the provider never grants, and for a tool no key names', async () => {
    const { client, provider } = await connect();
    // It asks for files:write once; the provider leaves it out, and the same challenge ends the retries.
    await expect(client.callTool({ name: 'delete_file', arguments: {} })).rejects.toThrow(/403 after trying upscoping/);
    // The challenge names what the operation needs (the route's invoke and the tool's files:write).
    expect(provider.lastChallenge).toBe('invoke files:write');
    expect(provider.tokens()?.scope).toBe('invoke');
    // deny: a 403 without a challenge, no token would help.
    await expect(client.callTool({ name: 'format_disk', arguments: {} })).rejects.toThrow(
      /this route is closed to every caller/,
    );
    await client.close();
  });
});
