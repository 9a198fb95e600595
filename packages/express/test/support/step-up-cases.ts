import { describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import { learnChallenges, StepUpProvider } from './mcp-step-up.js';

// The required-only challenge (MCP 2026-07-28, SEP-2350) with the SDK 1.x client, where the route
// itself needs no scope: the challenge names the tool's scope alone, so only a client that adds it
// to what it holds keeps the scope an earlier tool needed. A client that replaces its list loses it
// and must step up again for the first tool. One set of cases, run behind each adapter.

/** The provider: `read` is its own scope; weather:read one it grants when asked (the extra client's). */
export const startStepUpProvider = () =>
  startOidcProvider('RS256', 'mcp-key', { id: 'weather-agent', scope: 'weather:read', claims: {} });

/** The config for the MCP endpoint at `${origin}/mcp`: the route needs no scope, each tool one. */
export const stepUpConfig = (oidc: OidcProvider, origin: string) => ({
  auth: { mode: 'jwt', jwt: { jwks_url: oidc.jwksUri, issuer: oidc.issuer, algorithms: ['RS256'] } },
  resource: { identifier: `${origin}/mcp` },
  mcp: { endpoint: '/mcp' },
  access: {
    'POST /mcp': 'authenticated',
    'MCP tools/call read_notes': { scopes: ['read'] },
    'MCP tools/call get_forecast': { scopes: ['weather:read'] },
  },
});

interface Served {
  readonly origin: string;
  readonly oidc: OidcProvider;
}

async function connect({ origin, oidc }: Served, replace: boolean) {
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

/** The cases, against the server `served()` names (read when a test runs, after `beforeAll`). */
export function describeStepUp(served: () => Served): void {
  describe('the SDK 1.x client stepping up where the route needs no scope', () => {
    it('adds the challenged scope to what it holds, and keeps calling the first tool with no new token', async () => {
      const { client, provider, tokenRequests, before } = await connect(served(), false);
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
      const { client, provider, tokenRequests, before } = await connect(served(), true);
      await client.callTool({ name: 'get_forecast', arguments: {} });
      expect(provider.tokens()?.scope).toBe('weather:read');
      expect(await client.callTool({ name: 'read_notes', arguments: {} })).toMatchObject(text('read_notes'));
      expect(provider.tokens()?.scope).toBe('read');
      expect(tokenRequests() - before).toBe(3);
      await client.close();
    });
  });
}
