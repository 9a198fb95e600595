import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { discoverEndpoint, discoveryUrl, MAX_DOCUMENT_BYTES } from '../../src/remote/discovery.js';
import { serve } from './loopback.js';

let documents: Record<string, unknown> = {};
let server: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  server = await serve((req, res) => {
    const document = documents[req.url ?? ''];
    if (document === undefined) return void res.writeHead(404).end();
    res.setHeader('content-type', 'application/json').end(JSON.stringify(document));
  });
});
afterAll(() => server.close());

const WELL_KNOWN = '/.well-known/openid-configuration';

describe('discoveryUrl', () => {
  it.each([
    ['https://sso.example.com/realms/acme', 'https://sso.example.com/realms/acme/.well-known/openid-configuration'],
    ['https://sso.example.com/realms/acme/', 'https://sso.example.com/realms/acme/.well-known/openid-configuration'],
    ['https://sso.example.com//', 'https://sso.example.com/.well-known/openid-configuration'],
  ])('%s → %s', (issuer, url) => {
    expect(discoveryUrl(issuer)).toBe(url);
  });
});

describe('discoverEndpoint', () => {
  const issuer = () => `${server.url}/tenant`;
  const withDocument = (document: unknown) => {
    documents = { [`/tenant${WELL_KNOWN}`]: document };
  };

  it('returns the URL of the field from a document that names the issuer', async () => {
    withDocument({
      issuer: issuer(),
      jwks_uri: 'https://idp.example/jwks',
      introspection_endpoint: 'https://idp.example/i',
    });
    await expect(discoverEndpoint(issuer(), 'jwks_uri', { timeoutMs: 2000 })).resolves.toBe('https://idp.example/jwks');
    await expect(discoverEndpoint(issuer(), 'introspection_endpoint', { timeoutMs: 2000 })).resolves.toBe(
      'https://idp.example/i',
    );
  });

  it('refuses a document that names another issuer, even by a trailing slash, as a misconfiguration', async () => {
    withDocument({ issuer: `${issuer()}/`, jwks_uri: 'https://idp.example/jwks' });
    await expect(discoverEndpoint(issuer(), 'jwks_uri', { timeoutMs: 2000 })).rejects.toMatchObject({
      name: 'FetchFailure',
      kind: 'the discovery document names another issuer',
      level: 'error',
    });
  });

  it.each([
    ['missing', undefined],
    ['not a string', ['https://idp.example/jwks']],
    ['a file: URL', 'file:///etc/passwd'],
    ['not a URL', 'http://[::1'],
    ['a URL with user info', 'https://user:secret@idp.example/jwks'],
  ])('refuses a field that is %s', async (_name, value) => {
    withDocument({ issuer: issuer(), jwks_uri: value });
    await expect(discoverEndpoint(issuer(), 'jwks_uri', { timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'the discovery document has no usable jwks_uri',
      level: 'warn',
    });
  });

  it('refuses a document over MAX_DOCUMENT_BYTES and one that is not there', async () => {
    withDocument({ issuer: issuer(), jwks_uri: 'https://idp.example/jwks', pad: 'x'.repeat(MAX_DOCUMENT_BYTES) });
    await expect(discoverEndpoint(issuer(), 'jwks_uri', { timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'too large',
    });
    withDocument({});
    await expect(discoverEndpoint(`${server.url}/nowhere`, 'jwks_uri', { timeoutMs: 2000 })).rejects.toMatchObject({
      kind: 'not a 200',
    });
  });
});
