import { afterAll, describe, expect, it } from '@jest/globals';
import { AuthError, createAuthContext, parseAuthConfig, type AuthHandler } from '@authlayer/core';
import { createSigningKey, mintToken } from '@authlayer/testkit';
import type { Engine } from '../src/engine.js';
import { combineHandlers } from '../src/combine-handlers.js';
import { engineAt, judge, requestTo, T } from './support/engine-at.js';

// What a combination of modes says that combine-handlers.test.ts does not show: the issuers of
// every mode that has some, a combination that lets no mode authenticate, and who a rate limit
// counts when several issuers vouch for the same `sub`.

const config = parseAuthConfig({ auth: { mode: ['api_key', 'jwt'], jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } });

function handler(method: 'api_key' | 'jwt', extra: Partial<AuthHandler> = {}): AuthHandler {
  const challenge = method === 'jwt' ? 'Bearer realm="authlayer"' : 'ApiKey realm="authlayer"';
  return {
    method,
    authenticate: (request) =>
      Object.keys(request.headers).length === 0
        ? Promise.reject(new AuthError('credentials_missing', challenge))
        : Promise.resolve(createAuthContext({ method })),
    recognize: (request) => (request.headers[method === 'jwt' ? 'authorization' : 'x-api-key'] ? 'certain' : undefined),
    ...extra,
  };
}

describe('combineHandlers', () => {
  it('lists the authorization servers of every mode that names some, each once', async () => {
    const idp = () => ['https://idp.example', 'https://partner.example'];
    const combined = await combineHandlers(
      [
        handler('api_key'),
        handler('jwt', { authorizationServers: idp }),
        handler('jwt', { authorizationServers: idp }),
      ],
      config,
    );
    expect(combined.authorizationServers?.()).toEqual(['https://idp.example', 'https://partner.example']);
  });

  it('with no mode allowed: every credential is refused as missing, and it names its first mode', async () => {
    const combined = await combineHandlers([handler('api_key'), handler('jwt')], config, []);
    expect(combined.method).toBe('api_key');
    await expect(combined.authenticate({ headers: { 'x-api-key': 'k' } })).rejects.toMatchObject({
      reason: 'credentials_missing',
    });
  });
});

describe('rate limits of callers vouched for by several issuers', () => {
  const A = 'https://sso.example.com';
  const B = 'https://partner.example.com';
  let engine: Engine | undefined;
  afterAll(() => engine?.close());

  it("counts each issuer's alice on her own: one issuer's limit reached leaves the other's", async () => {
    const [keyA, keyB] = [await createSigningKey('HS256'), await createSigningKey('HS256')];
    const made = await engineAt(
      {
        auth: {
          mode: 'jwt',
          jwt: {
            algorithms: ['HS256'],
            audience: 'api',
            providers: [
              { issuer: A, public_key_env: 'A_KEY' },
              { issuer: B, public_key_env: 'B_KEY' },
            ],
          },
        },
        rate_limit: { requests_per_minute: 1 },
      },
      { env: { A_KEY: keyA.envValue, B_KEY: keyB.envValue } },
    );
    engine = made.engine;
    const send = async (key: typeof keyA, iss: string) => {
      const token = await mintToken(key, { iss, sub: 'alice', aud: 'api', iat: T / 1000, exp: T / 1000 + 60 });
      const { outcome } = await judge(
        made.engine.current(),
        requestTo('GET', '/x', { authorization: `Bearer ${token}` }),
      );
      return outcome?.pass === true ? 200 : outcome?.answer.status;
    };
    expect(await send(keyA, A)).toBe(200);
    expect(await send(keyA, A)).toBe(429);
    expect(await send(keyB, B)).toBe(200);
  });
});
