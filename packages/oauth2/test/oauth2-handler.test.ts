import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { expectedContext, type OpaqueTokenProvider } from '@authlayer/testkit';
import { oauth2Of } from '../src/config/oauth2-section.js';
import { createOAuth2Handler } from '../src/oauth2-handler.js';
import { handlerFor, oauth2Config, startProvider } from './provider.js';

let provider: OpaqueTokenProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

const REPORTER = expectedContext({
  method: 'oauth2',
  userId: 'reporting-job',
  email: 'jobs@acme.example',
  roles: ['reporter'],
  permissions: ['reports:read', 'invoke'],
  scopes: ['invoke', 'read'],
  tenantId: 'acme',
});
const refusal = (reason: string) => ({ name: 'AuthError', code: 'unauthorized', status: 401, reason });

describe('createOAuth2Handler against a real provider (oidc-provider, opaque tokens)', () => {
  it.each(['basic', 'post'] as const)('maps the answer for a token it issued (client_secret_%s)', async (method) => {
    const client = provider.clients[method];
    const config = oauth2Config(provider, {
      client_id: client.id,
      auth_method: `client_secret_${method}`,
      issuer: provider.issuer,
      audience: 'urn:authlayer:api',
    });
    const { authenticate } = await handlerFor(config, client.secret);
    expect(await authenticate(await provider.obtainToken())).toEqual(REPORTER);
  });

  it("ends a token at the answer's exp, without leeway (credentialExpiry)", async () => {
    const { handler, authenticate } = await handlerFor(oauth2Config(provider), provider.clients.basic.secret);
    const token = await provider.obtainToken();
    const context = await authenticate(token);
    const expiry = handler.credentialExpiry?.(context, { headers: { authorization: `Bearer ${token}` } });
    // oidc-provider's access tokens live 300 s here: exp is an integer a few minutes ahead.
    expect(Number.isInteger(expiry?.expiresAt)).toBe(true);
    expect(expiry?.refusedFrom).toBe((expiry?.expiresAt ?? 0) * 1000);
    expect(expiry?.reason).toBe('token_expired');
    expect((expiry?.expiresAt ?? 0) * 1000).toBeGreaterThan(Date.now());
    expect(handler.credentialExpiry?.(REPORTER, { headers: {} })).toBeNull();
  });

  it('answers from the cache until cache_seconds, then asks again and sees the revocation', async () => {
    const { authenticate, clock } = await handlerFor(
      oauth2Config(provider, { cache_seconds: 60 }),
      provider.clients.basic.secret,
    );
    const token = await provider.obtainToken();
    const before = provider.introspections;
    await authenticate(token);
    await provider.revoke(token);
    clock.now += 59_999;
    expect(await authenticate(token)).toEqual(REPORTER);
    expect(provider.introspections).toBe(before + 1);
    clock.now += 1;
    await expect(authenticate(token)).rejects.toMatchObject(refusal('credentials_invalid'));
    expect(provider.introspections).toBe(before + 2);
  });

  it('with cache_seconds 0 asks every time, for active and inactive tokens alike', async () => {
    const { authenticate } = await handlerFor(
      oauth2Config(provider, { cache_seconds: 0 }),
      provider.clients.basic.secret,
    );
    const token = await provider.obtainToken();
    const before = provider.introspections;
    await authenticate(token);
    await authenticate(token);
    await expect(authenticate('never-issued')).rejects.toMatchObject(refusal('credentials_invalid'));
    await expect(authenticate('never-issued')).rejects.toMatchObject(refusal('credentials_invalid'));
    expect(provider.introspections).toBe(before + 4);
  });

  it('sends 100 concurrent requests with one new token to the provider once', async () => {
    const { authenticate } = await handlerFor(oauth2Config(provider), provider.clients.basic.secret);
    const token = await provider.obtainToken();
    const before = provider.introspections;
    const contexts = await Promise.all(Array.from({ length: 100 }, () => authenticate(token)));
    expect(provider.introspections).toBe(before + 1);
    expect(new Set(contexts).size).toBe(1);
    expect(contexts[0]).toEqual(REPORTER);
  });

  it('checks iss and aud as configured', async () => {
    const token = await provider.obtainToken();
    const issuer = await handlerFor(
      oauth2Config(provider, { issuer: 'https://other.example' }),
      provider.clients.basic.secret,
    );
    await expect(issuer.authenticate(token)).rejects.toMatchObject(refusal('issuer_mismatch'));
    const audience = await handlerFor(oauth2Config(provider, { audience: 'urn:other' }), provider.clients.basic.secret);
    await expect(audience.authenticate(token)).rejects.toMatchObject(refusal('audience_mismatch'));
  });

  it('refuses a token past exp at the next request, even from the cache', async () => {
    const { authenticate, clock } = await handlerFor(
      oauth2Config(provider, { cache_seconds: 3600 }),
      provider.clients.basic.secret,
    );
    const token = await provider.obtainToken();
    await authenticate(token);
    clock.now += 301_000; // the provider's tokens live 300 s
    await expect(authenticate(token)).rejects.toMatchObject(refusal('token_expired'));
  });

  it('says key_unavailable when the client secret is wrong (the provider answers 401)', async () => {
    const { authenticate, logger } = await handlerFor(oauth2Config(provider), 'not-the-secret');
    await expect(authenticate(await provider.obtainToken())).rejects.toMatchObject(refusal('key_unavailable'));
    expect(logger.text).toEqual([
      'warn: auth.oauth2: the introspection endpoint cannot be used (not a 200); tokens are refused until it can',
    ]);
  });

  it('refuses missing and malformed credentials without asking the provider', async () => {
    const { handler } = await handlerFor(oauth2Config(provider), provider.clients.basic.secret);
    const before = provider.introspections;
    await expect(handler.authenticate({ headers: {} })).rejects.toMatchObject(refusal('credentials_missing'));
    await expect(handler.authenticate({ headers: { authorization: 'Bearer a b' } })).rejects.toMatchObject(
      refusal('token_malformed'),
    );
    expect(provider.introspections).toBe(before);
  });
});

describe('createOAuth2Handler at start-up', () => {
  it.each([undefined, ''])('refuses a client secret variable that is %p, naming it', async (value) => {
    await expect(
      createOAuth2Handler(oauth2Config(provider), { env: { OAUTH2_CLIENT_SECRET: value }, logger: console }),
    ).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'auth.oauth2.client_secret_env: the variable OAUTH2_CLIENT_SECRET is unset or empty',
    });
  });

  it('refuses a section without client_id (as checked for a config of another mode)', async () => {
    const config = oauth2Config(provider);
    const section = { ...oauth2Of(config, {}), clientId: null };
    await expect(
      createOAuth2Handler(config, { env: { OAUTH2_CLIENT_SECRET: 's' }, logger: console, section }),
    ).rejects.toMatchObject({
      message: 'auth.oauth2.client_id: oauth2 mode needs client_id',
    });
  });

  it('throws TypeError without a config or deps', async () => {
    await expect(createOAuth2Handler(undefined as never, undefined as never)).rejects.toThrow(TypeError);
    await expect(createOAuth2Handler(oauth2Config(provider), { env: {} } as never)).rejects.toThrow(TypeError);
  });

  it('describes itself for --check by names, never the secret', async () => {
    const secret = provider.clients.basic.secret;
    const { handler } = await handlerFor(
      oauth2Config(provider, { introspection_url: `${provider.introspectionEndpoint}?k=v` }),
      secret,
    );
    const description = handler.describe?.();
    expect(description).toEqual({
      introspection_url: `${provider.introspectionEndpoint}?k=redacted`,
      discovery: false,
      issuer: null,
      client_id: provider.clients.basic.id,
      key_material: { OAUTH2_CLIENT_SECRET: 'set' },
      auth_method: 'client_secret_basic',
      cache_seconds: 60,
      timeout_ms: 5000,
      cache_store: null,
    });
    expect(JSON.stringify(description)).not.toContain(secret);
    expect(handler.summary?.()).toBe(
      `introspection at ${provider.introspectionEndpoint}?k=redacted, client secret from environment variable OAUTH2_CLIENT_SECRET`,
    );
    expect(handler.summary?.()).not.toContain(secret);
    const discovered = await handlerFor(
      oauth2Config(provider, { introspection_url: null, discovery: true, issuer: 'https://sso.example' }),
      secret,
    );
    expect(discovered.handler.summary?.()).toBe(
      'introspection at the discovery document of https://sso.example/, client secret from environment variable OAUTH2_CLIENT_SECRET',
    );
    // RFC 9728 authorization_servers: the configured issuer, or none.
    expect(discovered.handler.authorizationServers?.()).toEqual(['https://sso.example']);
    expect(handler.authorizationServers?.()).toEqual([]);
  });

  it('recognises any Bearer token as likely its own, and documents BearerAuth without a format', async () => {
    const { handler } = await handlerFor(oauth2Config(provider), provider.clients.basic.secret);
    expect(handler.recognize?.({ headers: { authorization: 'Bearer opaque' } })).toBe('likely');
    expect(handler.recognize?.({ headers: { authorization: 'Bearer a b' } })).toBe('likely');
    expect(handler.recognize?.({ headers: { authorization: 'Basic dTpw' } })).toBeUndefined();
    expect(handler.securitySchemes?.()).toEqual([
      {
        name: 'BearerAuth',
        type: 'http',
        scheme: 'bearer',
        bearerFormat: null,
        description: 'OAuth2 access token, checked at the provider (RFC 7662)',
      },
    ]);
  });
});
