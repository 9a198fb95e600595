import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig, type AuthRequest } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createApiKeyHandler } from '../src/api-key-handler.js';

const KEY = 'recognised-key-0123456789';
const handlerWith = (apiKeys: object) =>
  createApiKeyHandler(parseAuthConfig({ auth: { mode: 'api_key', api_keys: apiKeys } }), {
    env: { SERVICE_API_KEY: KEY },
    logger: createCaptureLogger(),
  });

describe('the API key handler says what it recognises', () => {
  it.each<[string, AuthRequest, string | undefined]>([
    ['its header', { headers: { 'x-api-key': 'anything' } }, 'certain'],
    [
      'two of its headers (refused, but its own)',
      { headers: {}, rawHeaders: ['X-API-Key', 'a', 'X-API-Key', 'b'] },
      'certain',
    ],
    ['only empty headers of its name', { headers: {}, rawHeaders: ['X-API-Key', '', 'X-API-Key', ''] }, undefined],
    ['a configured key as Bearer', { headers: { authorization: `Bearer ${KEY}` } }, 'certain'],
    ['any other Bearer value', { headers: { authorization: 'Bearer not-a-key' } }, 'possible'],
    ['a malformed Bearer header', { headers: { authorization: 'Bearer a b' } }, 'possible'],
    ['no credential', { headers: {} }, undefined],
  ])('with allow_bearer: %s → %s', async (_name, request, expected) => {
    expect((await handlerWith({})).recognize?.(request)).toBe(expected);
  });

  it('without allow_bearer, takes no other Bearer value but still knows its own key (to refuse it)', async () => {
    const handler = await handlerWith({ allow_bearer: false });
    expect(handler.recognize?.({ headers: { authorization: `Bearer ${KEY}` } })).toBe('certain');
    expect(handler.recognize?.({ headers: { authorization: 'Bearer another-token' } })).toBeUndefined();
    expect(handler.recognize?.({ headers: { 'x-api-key': KEY } })).toBe('certain');
  });

  it('names its header, its schemes and where its key comes from, never the key', async () => {
    const handler = await handlerWith({ header: 'X-Partner-Key', allow_bearer: false });
    expect(handler.credentialHeaders).toEqual(['x-partner-key']);
    expect(handler.securitySchemes?.()).toEqual([
      {
        name: 'APIKeyHeader',
        type: 'apiKey',
        header: 'X-Partner-Key',
        description: 'API key in the X-Partner-Key header',
      },
    ]);
    expect(handler.summary?.()).toBe('environment variable SERVICE_API_KEY');
  });

  it.each([
    [[{ name: 'a', env_var: 'A' }], 'auth.api_keys.keys (1 key of 1 client)'],
    [
      [
        { name: 'a', env_var: 'A' },
        { name: 'a', env_var: 'B' },
        { name: 'b', env_var: 'C' },
      ],
      'auth.api_keys.keys (3 keys of 2 clients)',
    ],
  ])('summarises keys %j as %s', async (keys, summary) => {
    const handler = await createApiKeyHandler(parseAuthConfig({ auth: { mode: 'api_key', api_keys: { keys } } }), {
      env: { A: 'key-a-0123456789', B: 'key-b-0123456789', C: 'key-c-0123456789' },
      logger: createCaptureLogger(),
    });
    expect(handler.summary?.()).toBe(summary);
  });
});
