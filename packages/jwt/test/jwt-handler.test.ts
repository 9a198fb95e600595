import { beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthHandler } from '@authlayer/core';
import { createCaptureLogger, createSigningKey, mintToken, type SigningKey } from '@authlayer/testkit';
import { createHandler, createJwtHandler, JWKS_DEFAULTS, MAX_TOKEN_BYTES } from '../src/index.js';
import { bearer, failure, jwtConfig, NOW, staticHandler, validClaims } from './fixtures.js';

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512'] as const;

describe('createJwtHandler', () => {
  let key: SigningKey;
  let handler: AuthHandler;
  beforeAll(async () => {
    key = await createSigningKey('RS256');
    ({ handler } = await staticHandler(key, { issuer: 'https://idp.example', audience: 'api' }, {}));
  });

  it('is what the express loader imports as createHandler, and exports its limits', () => {
    expect(createHandler).toBe(createJwtHandler);
    expect(handler.method).toBe('jwt');
    expect(MAX_TOKEN_BYTES).toBe(8192);
    expect(JWKS_DEFAULTS).toEqual({ timeoutMs: 5000, cooldownMs: 30000, cacheMaxAgeMs: 600000 });
  });

  it('resolves the whole AuthContext of a valid token', async () => {
    const token = await mintToken(
      key,
      validClaims({
        iss: 'https://idp.example',
        aud: 'api',
        email: 'ada@example.com',
        name: 'Ada',
        roles: ['admin'],
        scope: 'read write',
      }),
    );
    const context = await handler.authenticate(bearer(token));
    expect(context).toEqual({
      method: 'jwt',
      userId: 'user-1',
      email: 'ada@example.com',
      name: 'Ada',
      roles: ['admin'],
      permissions: [],
      scopes: ['read', 'write'],
      tenantId: null,
    });
    expect(Object.isFrozen(context)).toBe(true);
  });

  it('answers credentials_missing without an error attribute when no Bearer token is sent', async () => {
    for (const headers of [{}, { authorization: '' }, { authorization: 'Basic dXNlcjpwYXNz' }]) {
      await expect(handler.authenticate({ headers })).rejects.toMatchObject({
        ...failure('credentials_missing'),
        challenge: 'Bearer realm="authlayer"',
      });
    }
  });

  it('answers token_malformed for a Bearer header without one well-formed token', async () => {
    for (const authorization of ['Bearer', 'Bearer a b', 'Bearer ä']) {
      await expect(handler.authenticate({ headers: { authorization } })).rejects.toMatchObject({
        ...failure('token_malformed'),
        challenge: 'Bearer realm="authlayer", error="invalid_token", error_description="the token is malformed"',
      });
    }
    await expect(handler.authenticate({ headers: { authorization: ['Bearer a', 'Bearer b'] } })).rejects.toMatchObject(
      failure('token_malformed'),
    );
  });

  it('never puts the token, a claim or a library message into the error', async () => {
    const token = await mintToken(key, validClaims({ iss: 'https://evil.example', aud: 'api' }));
    const error = (await handler.authenticate(bearer(token)).catch((e: unknown) => e)) as Error & { challenge: string };
    expect(error).toMatchObject(failure('issuer_mismatch'));
    expect(error.message).toBe('the token issuer is not accepted');
    expect(`${error.message} ${error.challenge}`).not.toMatch(/evil|eyJ|claim/);
  });

  it('checks time against deps.now, or the real clock when it is not given', async () => {
    const seconds = Math.floor(Date.now() / 1000);
    expect(NOW - seconds).toBeGreaterThan(3600); // the pinned clock is well after the real one
    const realTime = await staticHandler(key, {}, { now: undefined });
    const pinned = await staticHandler(key);
    const validNow = await mintToken(key, { sub: 'u', exp: seconds + 600 });
    const validAtNow = await mintToken(key, { sub: 'u', exp: NOW + 600 });
    expect(await realTime.handler.authenticate(bearer(validNow))).toEqual(
      createAuthContext({ method: 'jwt', userId: 'u' }),
    );
    await expect(pinned.handler.authenticate(bearer(validNow))).rejects.toMatchObject(failure('token_expired'));
    expect(await pinned.handler.authenticate(bearer(validAtNow))).toMatchObject({ userId: 'u' });
    const expiredNow = await mintToken(key, { sub: 'u', exp: seconds - 60 });
    await expect(realTime.handler.authenticate(bearer(expiredNow))).rejects.toMatchObject(failure('token_expired'));
  });

  it('throws TypeError for a call without config or deps', async () => {
    const logger = createCaptureLogger();
    const config = jwtConfig({ public_key_env: 'K' });
    await expect(createJwtHandler(undefined as never, { env: {}, logger })).rejects.toThrow(TypeError);
    await expect(createJwtHandler(config, undefined as never)).rejects.toThrow(TypeError);
    await expect(createJwtHandler(config, { env: {} } as never)).rejects.toThrow(TypeError);
  });
});

describe('the nine algorithms of the spec', () => {
  const keys = new Map<string, SigningKey>();
  beforeAll(async () => {
    for (const alg of ALGORITHMS) keys.set(alg, await createSigningKey(alg));
  });

  it.each(ALGORITHMS)('accepts %s when it is configured', async (alg) => {
    const key = keys.get(alg) as SigningKey;
    const { handler, token } = await staticHandler(key);
    expect(await handler.authenticate(bearer(await token()))).toEqual(
      createAuthContext({ method: 'jwt', userId: 'user-1' }),
    );
  });

  it.each(ALGORITHMS)('refuses %s when only another algorithm of its family is listed', async (alg) => {
    const other = alg.endsWith('256') ? `${alg.slice(0, 2)}512` : `${alg.slice(0, 2)}256`;
    const { handler, token } = await staticHandler(keys.get(other) as SigningKey);
    expect(await handler.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
    const foreign = await mintToken(keys.get(alg) as SigningKey, validClaims());
    await expect(handler.authenticate(bearer(foreign))).rejects.toMatchObject(failure('algorithm_not_allowed'));
  });
});

describe('credentialExpiry', () => {
  it("is the token's exp, refused from exp plus the leeway on", async () => {
    const key = await createSigningKey('ES256');
    const { handler, token } = await staticHandler(key, { leeway_seconds: 7 });
    const context = await handler.authenticate(bearer(await token()));
    expect(handler.credentialExpiry?.(context, { headers: {} })).toEqual({
      expiresAt: NOW + 300,
      refusedFrom: (NOW + 307) * 1000,
      reason: 'token_expired',
    });
  });

  it('is null for a context without verified claims', async () => {
    const key = await createSigningKey('ES256');
    const { handler } = await staticHandler(key);
    expect(handler.credentialExpiry?.(createAuthContext({ method: 'jwt', userId: 'u' }), { headers: {} })).toBeNull();
  });
});
