import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, redactUrl, type AuthHandler } from '@authlayer/core';
import {
  createCaptureLogger,
  createSigningKey,
  forgeToken,
  mintToken,
  startJwksServer,
  startRecordingServer,
  type JwksServer,
  type RecordingServer,
  type SigningKey,
} from '@authlayer/testkit';
import { clockLeewayOf } from '@authlayer/core/internal';
import { createJwtHandler } from '../src/index.js';
import { bearer, failure, jwtConfig, NOW, now, validClaims } from './fixtures.js';

const STATIC_ISSUER = 'https://static.example.com';
let keys: { a: SigningKey; b: SigningKey; s: SigningKey };
let a: JwksServer;
let b: JwksServer;
let handler: AuthHandler;

beforeAll(async () => {
  keys = { a: await createSigningKey('RS256'), b: await createSigningKey('ES256'), s: await createSigningKey('HS256') };
  [a, b] = await Promise.all([startJwksServer([keys.a.publicJwk]), startJwksServer([keys.b.publicJwk])]);
  const config = jwtConfig(
    {
      audience: 'api',
      providers: [
        {
          issuer: a.issuer,
          discovery: true,
          algorithms: ['RS256'],
          claims: { roles: 'realm_access.roles' },
          leeway_seconds: 5,
        },
        {
          issuer: b.issuer,
          jwks_url: b.url,
          algorithms: ['ES256'],
          audience: 'b-api',
          claims: { roles: 'groups', tenant_id: 'tid' },
        },
        {
          issuer: STATIC_ISSUER,
          public_key_env: 'S_SECRET',
          algorithms: ['HS256'],
          required_claims: ['email'],
          leeway_seconds: 60,
        },
      ],
    },
    [{ name: 'admin', permissions: ['invoke'] }],
  );
  handler = await createJwtHandler(config, { env: { S_SECRET: keys.s.envValue }, logger: createCaptureLogger(), now });
});
afterAll(async () => {
  await Promise.all([a.close(), b.close()]);
});

describe('providers: several issuers', () => {
  it("accepts each issuer's tokens with its own key source, audience, algorithms and claims mapping", async () => {
    const fromA = await mintToken(
      keys.a,
      validClaims({ iss: a.issuer, aud: 'api', realm_access: { roles: ['admin'] } }),
    );
    const fromB = await mintToken(keys.b, validClaims({ iss: b.issuer, aud: 'b-api', groups: ['admin'], tid: 't-9' }));
    const fromS = await mintToken(keys.s, validClaims({ iss: STATIC_ISSUER, aud: 'api', email: 'ada@example.com' }));
    await expect(handler.authenticate(bearer(fromA))).resolves.toMatchObject({
      roles: ['admin'],
      permissions: ['invoke'],
      tenantId: null,
    });
    await expect(handler.authenticate(bearer(fromB))).resolves.toMatchObject({
      roles: ['admin'],
      permissions: ['invoke'],
      tenantId: 't-9',
    });
    await expect(handler.authenticate(bearer(fromS))).resolves.toMatchObject({ email: 'ada@example.com' });
    expect(a.paths).toEqual(['/.well-known/openid-configuration', '/jwks']);
    expect(b.paths).toEqual(['/jwks']);
  });

  it("ends each token at its own issuer's leeway", async () => {
    const fromA = await mintToken(keys.a, validClaims({ iss: a.issuer, aud: 'api' }));
    const fromS = await mintToken(keys.s, validClaims({ iss: STATIC_ISSUER, aud: 'api', email: 'ada@example.com' }));
    const expiry = async (token: string) =>
      handler.credentialExpiry?.(await handler.authenticate(bearer(token)), bearer(token));
    await expect(expiry(fromA)).resolves.toEqual({
      expiresAt: NOW + 300,
      refusedFrom: (NOW + 300 + 5) * 1000,
      reason: 'token_expired',
    });
    await expect(expiry(fromS)).resolves.toEqual({
      expiresAt: NOW + 300,
      refusedFrom: (NOW + 300 + 60) * 1000,
      reason: 'token_expired',
    });
  });

  it("gives each context its issuer's leeway, for the auth_time a rule's max_age reads", async () => {
    const fromA = await mintToken(keys.a, validClaims({ iss: a.issuer, aud: 'api' }));
    const fromB = await mintToken(keys.b, validClaims({ iss: b.issuer, aud: 'b-api' }));
    const fromS = await mintToken(keys.s, validClaims({ iss: STATIC_ISSUER, aud: 'api', email: 'ada@example.com' }));
    const leeway = async (token: string) => clockLeewayOf(await handler.authenticate(bearer(token)));
    // A's own 5, B's from auth.jwt (the default 30), S's own 60.
    expect(await Promise.all([leeway(fromA), leeway(fromB), leeway(fromS)])).toEqual([5, 30, 60]);
  });

  it("ends a context of no configured issuer at auth.jwt's own leeway", () => {
    const stray = createAuthContext({
      method: 'jwt',
      userId: 'x',
      issuer: 'https://nobody.example',
      claims: { exp: NOW },
    });
    expect(handler.credentialExpiry?.(stray, { headers: {} })).toEqual({
      expiresAt: NOW,
      refusedFrom: (NOW + 30) * 1000,
      reason: 'token_expired',
    });
  });

  it("holds each token to its own issuer's rules", async () => {
    // b's audience is b-api; a's key does not sign b's tokens; the static issuer requires email.
    const wrongAudience = await mintToken(keys.b, validClaims({ iss: b.issuer, aud: 'api' }));
    const wrongKey = await mintToken(keys.a, validClaims({ iss: b.issuer, aud: 'b-api' }), {
      alg: 'RS256',
      kid: keys.b.kid,
    });
    const noEmail = await mintToken(keys.s, validClaims({ iss: STATIC_ISSUER, aud: 'api' }));
    await expect(handler.authenticate(bearer(wrongAudience))).rejects.toMatchObject(failure('audience_mismatch'));
    await expect(handler.authenticate(bearer(wrongKey))).rejects.toMatchObject(failure('algorithm_not_allowed'));
    await expect(handler.authenticate(bearer(noEmail))).rejects.toMatchObject(failure('claim_invalid'));
  });

  it('describes each issuer, and is ready only when every one can verify', () => {
    expect(handler.describe?.()).toEqual({
      key_material: { S_SECRET: 'set' },
      issuers: [
        {
          config: 'auth.jwt.providers[0]',
          issuer: a.issuer,
          key_source: 'discovery',
          keys: 'fresh',
          trust_roles: true,
        },
        { config: 'auth.jwt.providers[1]', issuer: b.issuer, key_source: 'jwks_url', keys: 'fresh', trust_roles: true },
        {
          config: 'auth.jwt.providers[2]',
          issuer: STATIC_ISSUER,
          key_source: 'public_key_env',
          keys: 'static',
          trust_roles: true,
        },
      ],
    });
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'fresh' });
  });

  it('names every issuer as an authorization server (RFC 9728)', () => {
    expect(handler.authorizationServers?.()).toEqual([a.issuer, b.issuer, STATIC_ISSUER]);
  });

  it('names every issuer and its key source in its start-up summary', () => {
    const [ia, ib, is] = [a.issuer, b.issuer, STATIC_ISSUER].map(redactUrl);
    expect(handler.summary?.()).toBe(
      `issuer ${ia} (the discovery document of issuer ${ia}), issuer ${ib} (jwks_url ${b.url}), ` +
        `issuer ${is} (environment variable S_SECRET)`,
    );
  });
});

describe('the start-up summary of one issuer', () => {
  it.each([
    [{ issuer: 'https://idp.example', discovery: true }, 'the discovery document of issuer https://idp.example/'],
    [{ jwks_url: 'https://idp.example/jwks?k=hunter2' }, 'jwks_url https://idp.example/jwks?k=redacted'],
  ])('%j → %s', async (jwt, summary) => {
    const single = await createJwtHandler(jwtConfig(jwt), { env: {}, logger: createCaptureLogger() });
    expect(single.summary?.()).toBe(summary);
    expect(single.authorizationServers?.()).toEqual('issuer' in jwt ? [jwt.issuer] : []);
    expect(single.securitySchemes?.()).toEqual([
      { name: 'BearerAuth', type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT access token' },
    ]);
  });
});

describe('providers: a token of an issuer nobody configured', () => {
  let recorders: RecordingServer[];
  let guarded: AuthHandler;
  beforeAll(async () => {
    recorders = await Promise.all([startRecordingServer(), startRecordingServer()]);
    const [first, second] = recorders as [RecordingServer, RecordingServer];
    const config = jwtConfig({
      algorithms: ['RS256'],
      providers: [
        { issuer: first.origin, discovery: true },
        { issuer: second.origin, jwks_url: `${second.origin}/jwks` },
      ],
    });
    guarded = await createJwtHandler(config, { env: {}, logger: createCaptureLogger(), now });
  });
  afterAll(async () => {
    await Promise.all(recorders.map((recorder) => recorder.close()));
  });

  it('is refused with issuer_mismatch before any key is fetched: no request to anyone', async () => {
    const stranger = await createSigningKey('RS256');
    const tokens = [
      await mintToken(stranger, validClaims({ iss: 'https://third.example.com' })),
      await mintToken(stranger, validClaims({ iss: `${recorders[0]?.origin}/` })),
      await mintToken(stranger, validClaims()),
      await mintToken(stranger, validClaims({ iss: ['x'] as unknown as string })),
      forgeToken({ alg: 'RS256' }, { iss: 1 }, 'c2ln'),
    ];
    for (const token of tokens) {
      await expect(guarded.authenticate(bearer(token))).rejects.toMatchObject(failure('issuer_mismatch'));
    }
    await Promise.allSettled(Array.from({ length: 200 }, () => guarded.authenticate(bearer(tokens[0] as string))));
    expect(recorders.map((recorder) => recorder.requests)).toEqual([[], []]);
  });

  it('refuses a payload that cannot be read as token_malformed, also without a request', async () => {
    for (const token of [
      forgeToken({ alg: 'RS256' }, '[1]', 'c2ln'),
      'abc',
      `a.${'b'.repeat(9000)}.c`,
      forgeToken({ alg: 'RS256' }, 'not json', 'x'),
    ]) {
      await expect(guarded.authenticate(bearer(token))).rejects.toMatchObject(failure('token_malformed'));
    }
    expect(recorders.map((recorder) => recorder.requests)).toEqual([[], []]);
  });
});
