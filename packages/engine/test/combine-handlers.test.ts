import { describe, expect, it } from '@jest/globals';
import {
  AuthError,
  createAuthContext,
  parseAuthConfig,
  type AuthHandler,
  type ConstraintMode,
  type Recognition,
  type SenderConstraintConfig,
} from '@authlayer/core';
import { combineHandlers, createHandlerPicker } from '../src/combine-handlers.js';
import { modeThatRefused } from '../src/request/mode-tried.js';

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

const EXPIRY = { expiresAt: 1_800_000_000, refusedFrom: 1_800_000_000_000, reason: 'token_expired' } as const;

describe('combineHandlers answers as the chosen mode', () => {
  const apiKeyFirst = (answer: () => Promise<unknown>, extra: Partial<AuthHandler> = {}) =>
    handler('api_key', answer, {
      recognize: (request) => ('x-api-key' in request.headers ? 'certain' : undefined),
      ...extra,
    });
  const jwtSecond = (answer: () => Promise<unknown>, extra: Partial<AuthHandler> = {}) =>
    handler('jwt', answer, {
      recognize: (request) => ('authorization' in request.headers ? 'likely' : undefined),
      ...extra,
    });

  it("keeps the chosen mode's reason and sentence, its challenge first, and says which mode refused", async () => {
    const refused = new AuthError('token_expired', 'Bearer error="invalid_token"', 'the token expired at noon');
    const combined = await combineHandlers(
      [
        apiKeyFirst(() => Promise.resolve(createAuthContext({ method: 'api_key' }))),
        jwtSecond(() => Promise.reject(refused)),
      ],
      config,
    );
    const error = await combined.authenticate({ headers: { authorization: 'Bearer t' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect(error).toMatchObject({ reason: 'token_expired', message: 'the token expired at noon' });
    expect((error as AuthError).challenge).toBe('Bearer error="invalid_token", ApiKey realm="authlayer"');
    expect(modeThatRefused(error as AuthError)).toBe('jwt');
  });

  it('a refusal thrown at once by a synchronous mode is rechallenged the same way', async () => {
    const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
    const now = () => {
      throw new AuthError('credentials_invalid', 'ApiKey error="invalid_key"');
    };
    const combined = await combineHandlers([apiKeyFirst(ok, { authenticateNow: now }), jwtSecond(ok)], config);
    expect(() => combined.authenticateNow!({ headers: { 'x-api-key': 'k' } })).toThrow(
      expect.objectContaining({
        reason: 'credentials_invalid',
        challenge: 'ApiKey error="invalid_key", Bearer realm="authlayer"',
      }),
    );
  });

  it('no credential for any mode: credentials_missing with every challenge', async () => {
    const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
    const combined = await combineHandlers([apiKeyFirst(ok), jwtSecond(ok)], config);
    await expect(combined.authenticate({ headers: { cookie: 'a=b' } })).rejects.toMatchObject({
      reason: 'credentials_missing',
      challenge: 'ApiKey realm="authlayer", Bearer realm="authlayer"',
    });
    expect(combined.recognize?.({ headers: {} })).toBeUndefined();
  });

  it("a route's modes: another mode's credential is answered as none, with the allowed modes' challenges", async () => {
    const ok = (method: 'api_key' | 'jwt') => () => Promise.resolve(createAuthContext({ method }));
    const combined = await combineHandlers([apiKeyFirst(ok('api_key')), jwtSecond(ok('jwt'))], config, ['jwt']);
    expect(combined.method).toBe('jwt');
    await expect(combined.authenticate({ headers: { 'x-api-key': 'k' } })).rejects.toMatchObject({
      reason: 'credentials_missing',
      challenge: 'Bearer realm="authlayer"',
    });
    await expect(combined.authenticate({ headers: { authorization: 'Bearer t' } })).resolves.toMatchObject({
      method: 'jwt',
    });
  });

  it('refuses at start-up a mode that lets a request without credentials through', async () => {
    const lax: AuthHandler = {
      method: 'jwt',
      authenticate: () => Promise.resolve(createAuthContext({ method: 'jwt' })),
    };
    const ok = () => Promise.resolve(createAuthContext({ method: 'api_key' }));
    await expect(combineHandlers([apiKeyFirst(ok), lax], config)).rejects.toThrow(
      'the jwt handler accepts a request without credentials; it cannot be combined',
    );
  });

  it("asks a context's own mode for its limits and its credential's expiry", async () => {
    const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
    const combined = await combineHandlers(
      [
        apiKeyFirst(ok, { limitsOf: () => ({ requestsPerMinute: 5 }) as never }),
        jwtSecond(ok, { credentialExpiry: () => EXPIRY }),
      ],
      config,
    );
    const apiKey = createAuthContext({ method: 'api_key', userId: 'p' });
    const jwt = createAuthContext({ method: 'jwt', userId: 'u' });
    expect(combined.limitsOf?.(apiKey)).toEqual({ requestsPerMinute: 5 });
    expect(combined.limitsOf?.(jwt)).toBeUndefined();
    expect(combined.credentialExpiry?.(jwt, { headers: {} })).toBe(EXPIRY);
    expect(combined.credentialExpiry?.(apiKey, { headers: {} })).toBeNull();
  });
});

describe('combineHandlers composes bindings and issuers', () => {
  const ok = () => Promise.resolve(createAuthContext({ method: 'jwt' }));
  const binding = (dpop: ConstraintMode, certificateBound: ConstraintMode, dpopAlgorithms: string[] = []) =>
    ({ dpop, certificateBound, dpopAlgorithms }) as SenderConstraintConfig;
  const combinedOf = (first?: SenderConstraintConfig, second?: SenderConstraintConfig) =>
    combineHandlers(
      [
        handler('api_key', ok, first === undefined ? {} : { senderConstraint: () => first }),
        handler('jwt', ok, second === undefined ? {} : { senderConstraint: () => second }),
      ],
      config,
    );

  it('a binding is required only when every mode requires it; a mode that does not bind takes unbound tokens', async () => {
    const both = await combinedOf(
      binding('required', 'required', ['ES256']),
      binding('required', 'off', ['ES256', 'EdDSA']),
    );
    expect(both.senderConstraint?.()).toEqual({
      dpop: 'required',
      certificateBound: 'allowed',
      dpopAlgorithms: ['ES256', 'EdDSA'],
    });
    const one = await combinedOf(undefined, binding('required', 'allowed', ['PS256']));
    expect(one.senderConstraint?.()).toEqual({
      dpop: 'allowed',
      certificateBound: 'allowed',
      dpopAlgorithms: ['PS256'],
    });
  });

  it('no mode binds: everything off, and the algorithms of a mode with DPoP off are not listed', async () => {
    const none = await combinedOf(binding('off', 'off', ['RS256']), undefined);
    expect(none.senderConstraint?.()).toEqual({ dpop: 'off', certificateBound: 'off', dpopAlgorithms: [] });
  });

  it('lists each authorization server once', async () => {
    const combined = await combineHandlers(
      [
        handler('api_key', ok, { authorizationServers: () => ['https://as.example'] }),
        handler('jwt', ok, { authorizationServers: () => ['https://as.example', 'https://other.example'] }),
      ],
      config,
    );
    expect(combined.authorizationServers?.()).toEqual(['https://as.example', 'https://other.example']);
  });
});
