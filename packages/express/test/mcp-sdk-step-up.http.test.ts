import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createCaptureLogger, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import express from 'express';
import { createAuthMiddleware, errorHandler, type AuthMiddleware } from '../src/index.js';
import { listen } from './support/listen.js';
import { serveNotes } from './support/notes-server.js';
import { learnChallenges, StepUpProvider } from './support/mcp-step-up.js';

// The required-only challenge (MCP 2026-07-28, SEP-2350) with the SDK 1.x client, where the route
// itself needs no scope: the challenge names the tool's scope alone, so only a client that adds it
// to what it holds keeps the scope an earlier tool needed. A client that replaces its list loses it
// and must step up again for the first tool.

let oidc: OidcProvider;
let origin: string;
let closeServer: () => Promise<void>;
let auth: AuthMiddleware;

beforeAll(async () => {
  // `read` is the provider's own scope; weather:read one it grants when asked (the extra client's).
  oidc = await startOidcProvider('RS256', 'mcp-key', { id: 'weather-agent', scope: 'weather:read', claims: {} });
  const app = express();
  ({ origin, close: closeServer } = await listen(app));
  auth = await createAuthMiddleware(
    {
      auth: { mode: 'jwt', jwt: { jwks_url: oidc.jwksUri, issuer: oidc.issuer, algorithms: ['RS256'] } },
      resource: { identifier: `${origin}/mcp` },
      mcp: { endpoint: '/mcp' },
      access: {
        'POST /mcp': 'authenticated',
        'MCP tools/call read_notes': { scopes: ['read'] },
        'MCP tools/call get_forecast': { scopes: ['weather:read'] },
      },
    },
    { logger: createCaptureLogger() },
  );
  app.use(auth.access); // also answers the RFC 9728 document
  app.post('/mcp', serveNotes);
  app.use(errorHandler());
});

afterAll(async () => {
  await closeServer();
  await auth.close();
  await oidc.close();
});

async function connect(replace: boolean) {
  const provider = new StepUpProvider({
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    expectedIssuer: oidc.issuer,
    scope: 'read',
  });
  const client = new Client({ name: 'notes-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
    authProvider: provider,
    fetch: learnChallenges(provider, replace),
  });
  await client.connect(transport);
  const tokenRequests = () => oidc.paths.filter((path) => path.startsWith('/token')).length;
  return { client, provider, tokenRequests, before: tokenRequests() - 1 };
}

const text = (name: string) => ({ content: [{ type: 'text', text: `${name} ok` }] });

describe('the SDK 1.x client stepping up where the route needs no scope', () => {
  it('adds the challenged scope to what it holds, and keeps calling the first tool with no new token', async () => {
    const { client, provider, tokenRequests, before } = await connect(false);
    expect(await client.callTool({ name: 'read_notes', arguments: {} })).toMatchObject(text('read_notes'));
    expect(await client.callTool({ name: 'get_forecast', arguments: {} })).toMatchObject(text('get_forecast'));
    // Required only: the tool's scope, not the token's `read`.
    expect(provider.lastChallenge).toBe('weather:read');
    expect(provider.tokens()?.scope).toBe('read weather:read');
    expect(await client.callTool({ name: 'read_notes', arguments: {} })).toMatchObject(text('read_notes'));
    expect(tokenRequests() - before).toBe(2);
    await client.close();
  });

  it('shows why: a client that replaces its scopes with the challenge loses read and steps up again', async () => {
    const { client, provider, tokenRequests, before } = await connect(true);
    await client.callTool({ name: 'get_forecast', arguments: {} });
    expect(provider.tokens()?.scope).toBe('weather:read');
    expect(await client.callTool({ name: 'read_notes', arguments: {} })).toMatchObject(text('read_notes'));
    expect(provider.tokens()?.scope).toBe('read');
    expect(tokenRequests() - before).toBe(3);
    await client.close();
  });
});
