import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { startLoopbackServer, type LoopbackServer, type OpaqueTokenProvider } from '@authlayer/testkit';
import { oauth2Of } from '../src/config/oauth2-section.js';
import { createEndpointSource } from '../src/introspection-endpoint.js';
import { handlerFor, oauth2Config, startProvider } from './provider.js';

let provider: OpaqueTokenProvider;
let metadata: LoopbackServer;
let document: Record<string, unknown> = {};
let metadataHits = 0;
beforeAll(async () => {
  provider = await startProvider();
  metadata = await startLoopbackServer((request, response) => {
    metadataHits += 1;
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
});
afterAll(async () => {
  await provider.close();
  await metadata.close();
});

const discovering = (issuer: string) =>
  oauth2Of(
    parseAuthConfig({
      auth: { mode: 'oauth2', oauth2: { discovery: true, issuer, client_id: 'c', timeout_ms: 1000 } },
    }),
    {},
  );

describe('discovery: introspection_endpoint from the issuer metadata', () => {
  it("uses the real provider's introspection_endpoint, and authenticates through it", async () => {
    expect(await createEndpointSource(discovering(provider.issuer))()).toBe(provider.introspectionEndpoint);
    const config = oauth2Config(provider, { introspection_url: null, discovery: true, issuer: provider.issuer });
    const { authenticate, handler } = await handlerFor(config, provider.clients.basic.secret);
    expect((await authenticate(await provider.obtainToken())).tenantId).toBe('acme');
    expect(handler.describe?.()).toMatchObject({ introspection_url: null, discovery: true, issuer: provider.issuer });
  });

  it('fetches the document once for concurrent requests, and keeps it', async () => {
    document = { issuer: metadata.origin, introspection_endpoint: `${metadata.origin}/introspect` };
    const source = createEndpointSource(discovering(metadata.origin));
    const before = metadataHits;
    expect(new Set(await Promise.all([source(), source(), source()]))).toEqual(
      new Set([`${metadata.origin}/introspect`]),
    );
    await source();
    expect(metadataHits).toBe(before + 1);
  });

  it.each([
    [
      'names another issuer',
      () => ({ issuer: `${metadata.origin}/`, introspection_endpoint: `${metadata.origin}/i` }),
      'the discovery document names another issuer',
    ],
    [
      'has no introspection_endpoint',
      () => ({ issuer: metadata.origin }),
      'the discovery document has no usable introspection_endpoint',
    ],
    [
      'has a relative one',
      () => ({ issuer: metadata.origin, introspection_endpoint: '/i' }),
      'the discovery document has no usable introspection_endpoint',
    ],
    [
      'has one with user info',
      () => ({ issuer: metadata.origin, introspection_endpoint: 'https://u:p@x/i' }),
      'the discovery document has no usable introspection_endpoint',
    ],
    [
      'has a non-http one',
      () => ({ issuer: metadata.origin, introspection_endpoint: 'file:///etc/passwd' }),
      'the discovery document has no usable introspection_endpoint',
    ],
  ])('refuses a document that %s, and asks again at the next request', async (_name, make, kind) => {
    document = make();
    const source = createEndpointSource(discovering(metadata.origin));
    const before = metadataHits;
    await expect(source()).rejects.toMatchObject({ name: 'FetchFailure', kind });
    await expect(source()).rejects.toMatchObject({ kind });
    expect(metadataHits).toBe(before + 2);
  });

  it('refuses tokens with key_unavailable while the document is unusable', async () => {
    document = { issuer: 'https://elsewhere.example', introspection_endpoint: provider.introspectionEndpoint };
    const config = oauth2Config(provider, { introspection_url: null, discovery: true, issuer: metadata.origin });
    const { authenticate, logger } = await handlerFor(config, provider.clients.basic.secret);
    await expect(authenticate(await provider.obtainToken())).rejects.toMatchObject({ reason: 'key_unavailable' });
    expect(logger.text).toEqual([
      'error: auth.oauth2: the introspection endpoint cannot be used (the discovery document names another issuer); tokens are refused until it can',
    ]);
  });
});
