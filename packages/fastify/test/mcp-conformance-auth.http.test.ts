import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSigningKey, mintToken, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import { ADAPTERS, FULL_SCOPE, serveEveryAdapter, type ConformanceServers } from './support/conformance-server.js';
import { INITIALIZE, parseChallenge, probe, rpc } from './support/conformance-probe.js';

// The checks of the MCP conformance suite's server-side auth scenarios, which its registry build
// (0.1.16) does not have yet (docs/design/mcp-conformance.md), made here against the same fixture
// server as the suite's own run: each check is named by the suite's check id. Scenarios:
// auth-token-audience-validation, sep-2350-server-scope-challenge, the 401 / WWW-Authenticate /
// protected resource metadata scenarios, and json-rpc-batch-rejection. DPoP: its own file.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';

let idp: TestIdentityProvider;
let servers: ConformanceServers;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  servers = await serveEveryAdapter(idp, IDENTIFIER);
});
afterAll(async () => {
  await servers.close();
  await idp.close();
});

const bearer = async (claims: Record<string, unknown> = {}, expiresIn?: number) => ({
  authorization: `Bearer ${await idp.signToken({ sub: 'conformance', aud: IDENTIFIER, scope: FULL_SCOPE, ...claims }, expiresIn === undefined ? {} : { expiresIn })}`,
});

/** The suite's fixture contract: each operation, the scopes it needs, and its normal result. */
const OPERATIONS = [
  {
    label: 'tool',
    message: rpc('tools/call', { name: 'test_simple_text' }),
    scopes: ['mcp:conformance:tools:call', 'mcp:conformance:tools:test_simple_text'],
    result: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] },
  },
  {
    label: 'static resource',
    message: rpc('resources/read', { uri: 'test://static-text' }),
    scopes: ['mcp:conformance:resources:read', 'mcp:conformance:resources:static'],
    result: { contents: [expect.objectContaining({ uri: 'test://static-text', text: expect.any(String) })] },
  },
  {
    label: 'template resource',
    message: rpc('resources/read', { uri: 'test://template/123/data' }),
    scopes: ['mcp:conformance:resources:read', 'mcp:conformance:resources:template:123'],
    result: {
      contents: [expect.objectContaining({ uri: 'test://template/123/data', text: expect.stringContaining('123') })],
    },
  },
  {
    label: 'prompt',
    message: rpc('prompts/get', { name: 'test_simple_prompt' }),
    scopes: ['mcp:conformance:prompts:get', 'mcp:conformance:prompts:test_simple_prompt'],
    result: { messages: [expect.objectContaining({ role: 'user', content: expect.any(Object) })] },
  },
];

describe.each(ADAPTERS)('the suite server-side auth checks, on %s', (adapter) => {
  const url = () => servers.url(adapter);

  it('auth-token-audience-validation: 401 without a token, for a wrong or missing aud, expired, an untrusted key; the valid token passes', async () => {
    expect((await probe(url(), INITIALIZE)).status).toBe(401); // auth-unauthenticated-request-rejected
    expect((await probe(url(), INITIALIZE, await bearer())).status).toBe(200); // auth-valid-audience-token-accepted
    const refused = [
      await bearer({ aud: 'https://other.example.com/mcp' }), // auth-wrong-audience-token-rejected
      await bearer({ aud: undefined }), // auth-missing-audience-token-rejected
      await bearer({}, -60), // auth-expired-token-rejected
    ];
    // auth-untrusted-token-rejected: the provider's key id, another key's signature.
    const header = (await idp.signToken()).split('.')[0]!;
    const { kid } = JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid: string };
    const stranger = await createSigningKey('RS256', { kid });
    const now = Math.floor(Date.now() / 1000);
    const forged = await mintToken(stranger, { iss: idp.issuer, aud: IDENTIFIER, sub: 'x', iat: now, exp: now + 300 });
    refused.push({ authorization: `Bearer ${forged}` });
    for (const headers of refused) {
      const res = await probe(url(), INITIALIZE, headers);
      expect([res.status, parseChallenge(res.challenge).params.error]).toEqual([401, 'invalid_token']);
    }
  });

  it('auth-401-unauthorized and auth-www-authenticate-header: 401, a Bearer challenge with resource_metadata, a JSON body', async () => {
    for (const message of [INITIALIZE, rpc('tools/list')]) {
      const res = await probe(url(), message);
      expect(res.status).toBe(401);
      const { scheme, params } = parseChallenge(res.challenge);
      expect([scheme, params.resource_metadata]).toEqual(['Bearer', METADATA]);
      expect(params.error).toBeUndefined();
      expect(res.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    }
  });

  it('auth-prm-discovery and auth-prm-resource-validation: the document at the well-known path names the resource and its issuer', async () => {
    const res = await fetch(new URL(new URL(METADATA).pathname, url()));
    expect(res.status).toBe(200);
    const document = (await res.json()) as { resource: string; authorization_servers: string[] };
    expect(document.resource).toBe(IDENTIFIER); // absolute, https, no fragment, the server's URL
    expect(document.authorization_servers).toEqual([idp.issuer]);
  });

  it.each(OPERATIONS)(
    'sep-2350-server-scope-challenge, $label: 403, one insufficient_scope challenge with every scope it needs, the retry passes',
    async ({ message, scopes, result }) => {
      const low = await probe(url(), message, await bearer({ scope: 'mcp:conformance:baseline' }));
      expect(low.status).toBe(403); // server-scope-challenge-http-403
      const { scheme, params } = parseChallenge(low.challenge);
      // server-scope-challenge-www-authenticate, sep-2350-server-single-challenge
      expect([scheme, params.error, params.resource_metadata]).toEqual(['Bearer', 'insufficient_scope', METADATA]);
      expect(params.scope!.split(' ').sort()).toEqual([...scopes].sort());
      const full = await probe(url(), message, await bearer()); // server-scope-challenge-upgraded-retry
      expect([full.status, full.body]).toEqual([200, { jsonrpc: '2.0', id: 1, result }]);
    },
  );

  it('json-rpc-batch-rejection: a JSON array is 400 with one JSON-RPC error, even from a caller holding every scope', async () => {
    const res = await probe(url(), [rpc('ping', {}, 1), rpc('ping', {}, 2)], await bearer());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } });
  });
});
