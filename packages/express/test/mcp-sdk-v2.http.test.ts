import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createCaptureLogger, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import express from 'express';
import { createAuthMiddleware, errorHandler, type AuthMiddleware } from '../src/index.js';
import { listen } from './support/listen.js';
import { serveNotes } from './support/notes-server.js';

// The SDK v2 client (@modelcontextprotocol/client) against the required-only challenge, with no
// glue: it unions the challenged scopes with those it holds (SEP-2350). It asks for the metadata's
// scopes_supported on its first token, and authlayer's document lists every scope a key needs, so
// with it there is nothing to step up to; the app here serves a document listing the base scope only
// (resource.serve_metadata: false), as a server that keeps first tokens narrow does.

let oidc: OidcProvider;
let closeServer: () => Promise<void>;
const auths: AuthMiddleware[] = [];

async function serve(narrow: boolean): Promise<string> {
  const app = express();
  const { origin: url, close } = await listen(app);
  const previous = closeServer;
  closeServer = async () => {
    await close();
    await previous?.();
  };
  const auth = await createAuthMiddleware(
    {
      auth: { mode: 'jwt', jwt: { jwks_url: oidc.jwksUri, issuer: oidc.issuer, algorithms: ['RS256'] } },
      resource: { identifier: `${url}/mcp`, serve_metadata: !narrow },
      mcp: { endpoint: '/mcp' },
      access: {
        ...(narrow ? { 'GET /.well-known/oauth-protected-resource/mcp': 'public' } : {}),
        'POST /mcp': 'authenticated',
        'MCP tools/call read_notes': { scopes: ['read'] },
        'MCP tools/call get_forecast': { scopes: ['weather:read'] },
      },
    },
    { logger: createCaptureLogger() },
  );
  auths.push(auth);
  if (narrow) {
    app.get('/.well-known/oauth-protected-resource/mcp', (_req, res) => {
      res.json({ ...auth.resourceMetadata()!.document, scopes_supported: ['read'] });
    });
  }
  app.use(auth.access);
  app.post('/mcp', (req, res) => serveNotes(req, res, req.body));
  app.use(errorHandler());
  return url;
}

/** The v2 provider, for the provider's client (registered for client_secret_post). */
class PostProvider extends ClientCredentialsProvider {
  override clientInformation() {
    return { ...super.clientInformation(), token_endpoint_auth_method: 'client_secret_post' as const };
  }
}

beforeAll(async () => {
  oidc = await startOidcProvider('RS256', 'mcp-key', { id: 'weather-agent', scope: 'weather:read', claims: {} });
});

afterAll(async () => {
  await closeServer?.();
  for (const auth of auths) await auth.close();
  await oidc.close();
});

async function connect(url: string) {
  const provider = new PostProvider({
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    expectedIssuer: oidc.issuer,
    scope: 'read',
  });
  const client = new Client({ name: 'notes-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider }));
  const tokenRequests = () => oidc.paths.filter((path) => path.startsWith('/token')).length;
  return { client, provider, tokenRequests, before: tokenRequests() - 1 };
}

const text = (name: string) => ({ content: [{ type: 'text', text: `${name} ok` }] });

describe('the SDK v2 client', () => {
  it('steps up with the required-only challenge, adding the scope to what it holds', async () => {
    const { client, provider, tokenRequests, before } = await connect(await serve(true));
    expect(provider.tokens()?.scope).toBe('read');
    expect(await client.callTool({ name: 'read_notes', arguments: {} })).toMatchObject(text('read_notes'));
    expect(await client.callTool({ name: 'get_forecast', arguments: {} })).toMatchObject(text('get_forecast'));
    expect(provider.tokens()?.scope).toBe('read weather:read');
    expect(await client.callTool({ name: 'read_notes', arguments: {} })).toMatchObject(text('read_notes'));
    expect(tokenRequests() - before).toBe(2);
    await client.close();
  });

  it("asks for every scope of authlayer's own document on its first token", async () => {
    const { client, provider, tokenRequests, before } = await connect(await serve(false));
    expect(provider.tokens()?.scope).toBe('read weather:read');
    expect(await client.callTool({ name: 'get_forecast', arguments: {} })).toMatchObject(text('get_forecast'));
    expect(tokenRequests() - before).toBe(1);
    await client.close();
  });
});
