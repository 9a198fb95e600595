import { describe, expect, it } from '@jest/globals';
import { AuthError, createAuthContext, parseAuthConfig, type AuthHandler, type Recognition } from '@authlayer/core';
import { combineHandlers, createHandlerPicker } from '../src/combine-handlers.js';

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
    await expect(combined.authenticate({ headers: { authorization: 'Bearer k' } })).rejects.toBe(broken);
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

  it('asks the mode of a decision which configured client it names (clientOf), and no other mode', async () => {
    const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
    const combined = await combineHandlers(
      [handler('api_key', ok, { clientOf: ({ userId }) => userId ?? '' }), handler('jwt', ok)],
      config,
    );
    expect(combined.clientOf?.({ method: 'api_key', userId: 'partner' })).toBe('partner');
    expect(combined.clientOf?.({ method: 'jwt', userId: 'ada' })).toBeUndefined();
    expect(combined.clientOf?.({ method: 'none', userId: null })).toBeUndefined();
  });
});

describe('createHandlerPicker', () => {
  const claiming = (method: 'api_key' | 'jwt', recognition: Recognition | undefined): AuthHandler => ({
    method,
    authenticate: () => Promise.resolve(createAuthContext({ method })),
    recognize: () => recognition,
  });
  const request = { headers: { authorization: 'Bearer x' } };

  it.each([
    ['the surest wins, whatever the order', ['possible', 'certain'], 'jwt'],
    ['the first listed wins a tie', ['likely', 'likely'], 'api_key'],
    ['a handler that recognises nothing is never picked', [undefined, 'unlikely'], 'jwt'],
  ] as const)('%s', (_name, [first, second], method) => {
    const pick = createHandlerPicker([claiming('api_key', first), claiming('jwt', second)]);
    expect(pick(request)?.method).toBe(method);
  });

  it('picks nothing when no handler finds its credential', () => {
    expect(createHandlerPicker([claiming('api_key', undefined), claiming('jwt', undefined)])(request)).toBeUndefined();
  });

  it('lets a handler that does not say judge any Authorization header, as a last resort', () => {
    const silent = handler('jwt', () => Promise.resolve(createAuthContext({ method: 'jwt' })));
    const pick = createHandlerPicker([silent, claiming('api_key', 'unlikely')]);
    expect(pick(request)?.method).toBe('jwt');
    expect(createHandlerPicker([silent])({ headers: {} })).toBeUndefined();
  });
});

describe('combineHandlers composes what the modes say', () => {
  it('summary, schemes, credential headers and recognition of its modes', async () => {
    const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
    const combined = await combineHandlers(
      [
        handler('api_key', ok, {
          summary: () => 'environment variable K',
          credentialHeaders: ['x-api-key'],
          recognize: () => 'possible',
          securitySchemes: () => [{ name: 'APIKeyHeader', type: 'apiKey', header: 'X-API-Key', description: 'k' }],
        }),
        handler('jwt', ok),
      ],
      config,
    );
    expect(combined.summary?.()).toBe('api_key: environment variable K; jwt: not described by the handler');
    expect(combined.credentialHeaders).toEqual(['x-api-key']);
    expect(combined.securitySchemes?.()).toEqual([
      { name: 'APIKeyHeader', type: 'apiKey', header: 'X-API-Key', description: 'k' },
    ]);
    expect(combined.recognize?.({ headers: { 'x-api-key': 'k' } })).toBe('possible');
  });
});
