import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseAuthConfig, type AuthHandler, type AuthRequest } from '@authlayer/core';
import { inspect } from 'node:util';
import { createApiKeyHandler } from '../src/api-key-handler.js';
import { expectedKeyVariable } from '../src/expected-keys.js';
import { createCaptureLogger, expectedContext, type CaptureLogger } from '@authlayer/testkit';

const KEY = 'k3y-0123456789abcdef';
const OTHER = 'other-key-value-999';
type Env = Record<string, string | undefined>;
type Headers = AuthRequest['headers'];

const configWith = (apiKeys: Record<string, unknown> = {}) =>
  parseAuthConfig({ auth: { mode: 'api_key', api_keys: apiKeys } });

/** A handler for `api_keys` fields, the env, and a logger that keeps its lines. */
async function setUp(apiKeys: Record<string, unknown> = {}, env: Env = { SERVICE_API_KEY: KEY }) {
  const logger = createCaptureLogger();
  const handler = await createApiKeyHandler(configWith(apiKeys), { env, logger });
  return { handler, logger };
}

const contextFor = (userId: string) => expectedContext({ method: 'api_key', userId });

const challenge = (bearer: 'off' | 'missing' | 'invalid', header = 'X-API-Key') => {
  const apiKey = `ApiKey realm="authlayer", header="${header}"`;
  if (bearer === 'off') return apiKey;
  if (bearer === 'missing') return `${apiKey}, Bearer realm="authlayer"`;
  return `${apiKey}, Bearer realm="authlayer", error="invalid_token", error_description="the credentials are not valid"`;
};

/** Asserts the 401 the handler must reject with, and that nothing about it holds a key. */
async function expectRefused(
  handler: AuthHandler,
  headers: Headers,
  reason: 'credentials_missing' | 'credentials_invalid',
  expectedChallenge: string,
  logger?: CaptureLogger,
) {
  const error: unknown = await handler.authenticate({ headers }).then(
    () => new Error('the request was accepted'),
    (reason_: unknown) => reason_,
  );
  expect(error).toMatchObject({
    name: 'AuthError',
    code: 'unauthorized',
    status: 401,
    reason,
    challenge: expectedChallenge,
  });
  const seen = [inspect(error), JSON.stringify(error), ...(logger?.text ?? [])].join('\n');
  const presented = Object.values(headers)
    .flat()
    .map((value) => (value ?? '').replace(/^bearer/i, '').trim());
  for (const secret of [KEY, ...presented].filter((value) => value.length >= 8)) expect(seen).not.toContain(secret);
}

/** Returns the ConfigError that creating the handler must reject with. */
async function configErrorOf(apiKeys: Record<string, unknown>, env: Env): Promise<ConfigError> {
  const error: unknown = await setUp(apiKeys, env).then(
    () => new Error('the handler was created'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

const bearer = (token: string) => `Bearer ${token}`;

describe('createApiKeyHandler: accepted requests', () => {
  it.each<[string, Headers]>([
    ['the key in X-API-Key', { 'x-api-key': KEY }],
    ['the key as a Bearer token', { authorization: bearer(KEY) }],
    ['the key as a lower-case bearer token', { authorization: `bearer ${KEY}` }],
    ['an empty header, then the key as Bearer', { 'x-api-key': '', authorization: bearer(KEY) }],
    ['the right header and a wrong Bearer (the header wins)', { 'x-api-key': KEY, authorization: bearer(OTHER) }],
    ['the right header and a broken Bearer', { 'x-api-key': KEY, authorization: 'Bearer a b' }],
  ])('accepts %s with the whole AuthContext', async (_name, headers) => {
    const { handler, logger } = await setUp();
    await expect(handler.authenticate({ headers })).resolves.toEqual(contextFor('SERVICE_API_KEY'));
    expect(logger.text).toEqual([]);
  });

  it('names the variable the key came from as userId', async () => {
    const { handler } = await setUp({ env_var: 'MY_KEY' }, { MY_KEY: KEY });
    await expect(handler.authenticate({ headers: { 'x-api-key': KEY } })).resolves.toEqual(contextFor('MY_KEY'));
  });

  it('returns a frozen context and is itself a frozen api_key handler', async () => {
    const { handler } = await setUp();
    const context = await handler.authenticate({ headers: { 'x-api-key': KEY } });
    expect(Object.isFrozen(context)).toBe(true);
    expect(handler.method).toBe('api_key');
    expect(Object.isFrozen(handler)).toBe(true);
  });

  it("names the configured client of its own decisions for metrics (clientOf), '' for a refused key", async () => {
    const { handler } = await setUp();
    expect(handler.clientOf?.({ method: 'api_key', userId: 'SERVICE_API_KEY' })).toBe('SERVICE_API_KEY');
    expect(handler.clientOf?.({ method: 'api_key', userId: null })).toBe('');
    expect(handler.clientOf?.({ method: 'none', userId: null })).toBeUndefined();
  });
});

describe('createApiKeyHandler: refused requests', () => {
  it.each<[string, Headers, 'credentials_missing' | 'credentials_invalid']>([
    ['no credentials', {}, 'credentials_missing'],
    ['an empty header and no Bearer', { 'x-api-key': '' }, 'credentials_missing'],
    ['another scheme', { authorization: 'Basic YWRtaW46cGFzcw==' }, 'credentials_missing'],
    ['the key in another header', { 'x-api-token': KEY }, 'credentials_missing'],
    ['a wrong key of equal length', { 'x-api-key': 'k3y-9876543210fedcba' }, 'credentials_invalid'],
    ['a key differing only in the last character', { 'x-api-key': `${KEY.slice(0, -1)}g` }, 'credentials_invalid'],
    ['a prefix of the key', { 'x-api-key': KEY.slice(0, -1) }, 'credentials_invalid'],
    ['an extension of the key', { 'x-api-key': `${KEY}0` }, 'credentials_invalid'],
    ['the key with spaces around it (hand-made request)', { 'x-api-key': ` ${KEY} ` }, 'credentials_invalid'],
    ['the key in upper case', { 'x-api-key': KEY.toUpperCase() }, 'credentials_invalid'],
    [
      'a wrong header and the right Bearer (the header wins)',
      { 'x-api-key': OTHER, authorization: bearer(KEY) },
      'credentials_invalid',
    ],
    ['a wrong Bearer', { authorization: bearer(OTHER) }, 'credentials_invalid'],
    ['a Bearer header without a token', { authorization: 'Bearer' }, 'credentials_invalid'],
    ['a Bearer token with invalid characters', { authorization: `Bearer ${KEY}!` }, 'credentials_invalid'],
    ['the header twice', { 'x-api-key': [KEY, KEY] }, 'credentials_invalid'],
  ])('refuses %s', async (_name, headers, reason) => {
    const { handler, logger } = await setUp();
    await expectRefused(
      handler,
      headers,
      reason,
      challenge(reason === 'credentials_missing' ? 'missing' : 'invalid'),
      logger,
    );
    expect(logger.text).toEqual([]);
  });

  // No clock: the work is one SHA-256 over the key's bytes (key-table.ts), milliseconds for 1 MiB.
  // Work quadratic in the key's length (a backtracking pattern, say) would take many minutes at
  // this size, and jest's timeout fails the test; a time limit would only add failures on a
  // loaded machine.
  it('refuses a 1 MiB key, in the header and as a Bearer token, without keeping it', async () => {
    const { handler, logger } = await setUp();
    const huge = KEY.repeat(Math.ceil((1024 * 1024) / KEY.length));
    await expectRefused(handler, { 'x-api-key': huge }, 'credentials_invalid', challenge('invalid'), logger);
    await expectRefused(handler, { authorization: bearer(huge) }, 'credentials_invalid', challenge('invalid'), logger);
  });

  it('rejects (never throws synchronously)', async () => {
    const { handler } = await setUp();
    const result = handler.authenticate({ headers: {} });
    expect(result).toBeInstanceOf(Promise);
    await expect(result).rejects.toMatchObject({ reason: 'credentials_missing' });
  });
});

describe('createApiKeyHandler: allow_bearer false', () => {
  it.each<[string, Headers, 'credentials_missing' | 'credentials_invalid']>([
    // Its own key in the wrong place: present but not accepted there.
    ['the right key as Bearer', { authorization: bearer(KEY) }, 'credentials_invalid'],
    ['an empty header and the right Bearer', { 'x-api-key': '', authorization: bearer(KEY) }, 'credentials_invalid'],
    ['another Bearer value', { authorization: bearer(OTHER) }, 'credentials_missing'],
    ['no credentials', {}, 'credentials_missing'],
    ['a wrong header', { 'x-api-key': OTHER }, 'credentials_invalid'],
  ])('refuses %s with the ApiKey-only challenge', async (_name, headers, reason) => {
    const { handler } = await setUp({ allow_bearer: false });
    await expectRefused(handler, headers, reason, challenge('off'));
  });

  it('accepts the header', async () => {
    const { handler } = await setUp({ allow_bearer: false });
    const headers = { 'x-api-key': KEY, authorization: bearer(OTHER) };
    await expect(handler.authenticate({ headers })).resolves.toEqual(contextFor('SERVICE_API_KEY'));
  });
});

describe('createApiKeyHandler: custom header', () => {
  it('matches X-Custom-Key from the lower-case name Node gives', async () => {
    const { handler } = await setUp({ header: 'X-Custom-Key' });
    await expect(handler.authenticate({ headers: { 'x-custom-key': KEY } })).resolves.toEqual(
      contextFor('SERVICE_API_KEY'),
    );
  });

  it('no longer reads X-API-Key, and names the custom header in its challenge', async () => {
    const { handler } = await setUp({ header: 'X-Custom-Key', allow_bearer: false });
    await expectRefused(handler, { 'x-api-key': KEY }, 'credentials_missing', challenge('off', 'X-Custom-Key'));
  });

  it('answers 401, not a crash, for a header named like a prototype property', async () => {
    const { handler } = await setUp({ header: 'constructor' });
    await expectRefused(handler, {}, 'credentials_missing', challenge('missing', 'constructor'));
    await expect(handler.authenticate({ headers: { constructor: KEY } })).resolves.toEqual(
      contextFor('SERVICE_API_KEY'),
    );
  });
});

describe('createApiKeyHandler: unicode keys', () => {
  const UNICODE = 'ключ-🔑';
  const asNodeGivesIt = (key: string) => Buffer.from(key, 'utf8').toString('latin1');

  it('accepts a UTF-8 key as Node decodes it', async () => {
    const { handler } = await setUp({}, { SERVICE_API_KEY: UNICODE });
    const headers = { 'x-api-key': asNodeGivesIt(UNICODE) };
    await expect(handler.authenticate({ headers })).resolves.toEqual(contextFor('SERVICE_API_KEY'));
  });

  it.each([
    ['one character different', asNodeGivesIt('ключ-🔒')],
    ['the key as a JS string with one character different', 'ключ-🔒'],
    [
      'characters folding onto the key bytes',
      String.fromCharCode(...[...Buffer.from(KEY)].map((byte) => byte + 0x100)),
    ],
  ])('refuses %s', async (_name, presented) => {
    const { handler } = await setUp({}, { SERVICE_API_KEY: UNICODE });
    await expectRefused(handler, { 'x-api-key': presented }, 'credentials_invalid', challenge('invalid'));
    const ascii = await setUp();
    await expectRefused(ascii.handler, { 'x-api-key': presented }, 'credentials_invalid', challenge('invalid'));
  });
});

describe('createApiKeyHandler: where the expected key comes from', () => {
  it('reads <PREFIX>_API_KEY, not env_var, when prefix is set', async () => {
    const { handler } = await setUp({ prefix: 'prod', env_var: 'MY_KEY' }, { PROD_API_KEY: KEY, MY_KEY: OTHER });
    await expect(handler.authenticate({ headers: { 'x-api-key': KEY } })).resolves.toEqual(contextFor('PROD_API_KEY'));
    await expectRefused(handler, { 'x-api-key': OTHER }, 'credentials_invalid', challenge('invalid'));
  });

  it.each([
    ['no prefix', {}, 'SERVICE_API_KEY'],
    ['env_var', { env_var: 'MY_KEY' }, 'MY_KEY'],
    ['prefix prod', { prefix: 'prod' }, 'PROD_API_KEY'],
    ['a mixed-case prefix', { prefix: 'eu_West1', env_var: 'MY_KEY' }, 'EU_WEST1_API_KEY'],
  ])('expectedKeyVariable with %s is %s', (_name, apiKeys, variable) => {
    expect(expectedKeyVariable(configWith(apiKeys))).toBe(variable);
  });

  it.each<[string, Record<string, unknown>, Env, string, string]>([
    ['unset', {}, {}, 'auth.api_keys.env_var', 'environment variable SERVICE_API_KEY is unset or empty'],
    [
      'empty',
      {},
      { SERVICE_API_KEY: '' },
      'auth.api_keys.env_var',
      'environment variable SERVICE_API_KEY is unset or empty',
    ],
    [
      'unset, custom env_var',
      { env_var: 'MY_KEY' },
      { SERVICE_API_KEY: KEY },
      'auth.api_keys.env_var',
      'environment variable MY_KEY is unset or empty',
    ],
    [
      'unset with a prefix',
      { prefix: 'prod' },
      { SERVICE_API_KEY: KEY },
      'auth.api_keys.prefix',
      'environment variable PROD_API_KEY is unset or empty',
    ],
    [
      'empty with a prefix',
      { prefix: 'prod' },
      { PROD_API_KEY: '' },
      'auth.api_keys.prefix',
      'environment variable PROD_API_KEY is unset or empty',
    ],
    [
      'leading space',
      {},
      { SERVICE_API_KEY: ` ${KEY}` },
      'auth.api_keys.env_var',
      'environment variable SERVICE_API_KEY starts or ends with white space',
    ],
    [
      'trailing newline',
      {},
      { SERVICE_API_KEY: `${KEY}\n` },
      'auth.api_keys.env_var',
      'environment variable SERVICE_API_KEY starts or ends with white space',
    ],
    [
      'only a tab',
      { prefix: 'prod' },
      { PROD_API_KEY: '\t' },
      'auth.api_keys.prefix',
      'environment variable PROD_API_KEY starts or ends with white space',
    ],
    [
      'holding a newline inside',
      {},
      { SERVICE_API_KEY: 'abc\ndef' },
      'auth.api_keys.env_var',
      'environment variable SERVICE_API_KEY holds a control character',
    ],
    [
      'holding a NUL inside',
      {},
      { SERVICE_API_KEY: 'abc\u0000def' },
      'auth.api_keys.env_var',
      'environment variable SERVICE_API_KEY holds a control character',
    ],
    [
      'holding DEL inside',
      {},
      { SERVICE_API_KEY: 'abc\u007fdef' },
      'auth.api_keys.env_var',
      'environment variable SERVICE_API_KEY holds a control character',
    ],
  ])('refuses to start when the key is %s, naming the variable', async (_name, apiKeys, env, path, message) => {
    const error = await configErrorOf(apiKeys, env);
    expect(error.issues).toEqual([{ path, message }]);
    for (const value of [KEY, OTHER]) expect(error.message).not.toContain(value);
  });
});

describe('createApiKeyHandler: enabled false', () => {
  it('authenticates nobody, says so loudly, and needs no key', async () => {
    const { handler, logger } = await setUp({ enabled: false }, {});
    expect(handler.method).toBe('none');
    expect(logger.text).toEqual([
      'warn: auth.api_keys.enabled is false: API key mode is off and requests are NOT authenticated',
    ]);
    await expect(handler.authenticate({ headers: {} })).resolves.toEqual({
      ...contextFor('x'),
      method: 'none',
      userId: null,
    });
    await expect(handler.authenticate({ headers: { 'x-api-key': OTHER } })).resolves.toMatchObject({ method: 'none' });
  });
});

describe('createApiKeyHandler: the expected key stays hidden', () => {
  it('is not a readable property of the handler', async () => {
    const { handler } = await setUp();
    expect(JSON.stringify(handler)).not.toContain(KEY);
    expect(inspect(handler, { showHidden: true, depth: null, getters: true })).not.toContain(KEY);
    expect(Object.keys(handler).sort()).toEqual([
      'authenticate',
      'authenticateNow',
      'clientOf',
      'credentialExpiry',
      'credentialHeaders',
      'describe',
      'keyFiles',
      'limitsOf',
      'method',
      'recognize',
      'securitySchemes',
      'summary',
    ]);
    expect(handler.summary?.()).not.toContain(KEY);
  });
});
