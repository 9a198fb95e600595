import { describe, expect, it } from '@jest/globals';
import { AuthError, createAuthContext, parseAuthConfig, type AuthHandler } from '@authlayer/core';
import { forgeToken } from '@authlayer/testkit';
import { combineHandlers, isCompactJws } from '../src/combine-handlers.js';

const config = parseAuthConfig({ auth: { mode: ['api_key', 'jwt'], jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } });

/** A handler that refuses requests without credentials and answers the others as told. */
function handler(
  method: 'api_key' | 'jwt',
  answer: () => Promise<unknown>,
  extra: Partial<AuthHandler> = {},
): AuthHandler {
  return {
    method,
    authenticate: (request) =>
      Object.keys(request.headers).length === 0
        ? Promise.reject(
            new AuthError('credentials_missing', `${method === 'jwt' ? 'Bearer' : 'ApiKey'} realm="authlayer"`),
          )
        : (answer() as ReturnType<AuthHandler['authenticate']>),
    ...extra,
  };
}

describe('isCompactJws', () => {
  it.each([
    ['a JWS', forgeToken({ alg: 'RS256' }, { sub: 'x' }, 'c2ln'), true],
    ['three parts whose header is not JSON', 'prod.key.v1', false],
    ['a JSON header without alg', forgeToken({ typ: 'JWT' }, {}, 'c2ln'), false],
    ['a JSON header that is not an object', forgeToken('"alg"', {}, 'c2ln'), false],
    ['two parts', 'abc.def', false],
    ['an empty signature', forgeToken({ alg: 'RS256' }, {}), false],
  ])('%s → %s', (_name, token, expected) => {
    expect(isCompactJws(token)).toBe(expected);
  });
});

describe('combineHandlers', () => {
  it('passes on what is not an AuthError (the middleware answers 500 for it)', async () => {
    const broken = new TypeError('bug');
    const combined = await combineHandlers(
      [
        handler('api_key', () => Promise.reject(broken)),
        handler('jwt', () => Promise.resolve(createAuthContext({ method: 'jwt' }))),
      ],
      config,
    );
    await expect(combined.authenticate({ headers: { 'x-api-key': 'k' } })).rejects.toBe(broken);
  });

  it('takes the state of keys from the handler that has them, and is ready only when all are', async () => {
    const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
    const combined = await combineHandlers(
      [
        handler('api_key', ok, { describe: () => ({ variable: 'SERVICE_API_KEY' }) }),
        handler('jwt', ok, { readiness: () => ({ ready: false, keys: 'unavailable' }) }),
      ],
      config,
    );
    expect(combined.readiness?.()).toEqual({ ready: false, keys: 'unavailable' });
    expect(combined.describe?.()).toEqual({ api_key: { variable: 'SERVICE_API_KEY' }, jwt: {} });
  });
});

describe('combineHandlers picks the mode from rawHeaders, as the handlers read them', () => {
  const answering = (method: 'api_key' | 'jwt') =>
    handler(method, () => Promise.resolve(createAuthContext({ method })));
  const jws = forgeToken({ alg: 'RS256' }, { sub: 'x' }, 'c2ln');

  it.each([
    [
      'two empty API key headers and a JWS Bearer → jwt',
      ['X-API-Key', '', 'X-API-Key', '', 'Authorization', `Bearer ${jws}`],
      'jwt',
    ],
    [
      'an API key header that headers would not show → api_key',
      ['X-API-Key', 'k', 'Authorization', `Bearer ${jws}`],
      'api_key',
    ],
  ])('%s', async (_name, rawHeaders, method) => {
    const combined = await combineHandlers([answering('api_key'), answering('jwt')], config);
    // headers as Node would give them: the repeated empty header joined to ", ", the late one dropped.
    const headers = rawHeaders.includes('')
      ? { 'x-api-key': ', ', authorization: `Bearer ${jws}` }
      : { authorization: `Bearer ${jws}` };
    await expect(combined.authenticate({ headers, rawHeaders })).resolves.toMatchObject({ method });
  });
});
