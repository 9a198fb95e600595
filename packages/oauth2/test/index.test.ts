import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { OpaqueTokenProvider } from '@authlayer/testkit';
import * as oauth2 from '../src/index.js';
import { createOAuth2Handler } from '../src/oauth2-handler.js';
import { oauth2Config, startProvider } from './provider.js';

let provider: OpaqueTokenProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

describe('@authlayer/oauth2 public API', () => {
  it('exports createHandler, the name @authlayer/express loads, as the OAuth2 handler', () => {
    expect(oauth2.createHandler).toBe(createOAuth2Handler);
    expect(Object.keys(oauth2).sort()).toEqual([
      'ANSWER_CACHE_DEFAULTS',
      'INTROSPECTION_LIMITS',
      'MAX_ANSWER_BYTES',
      'configSchema',
      'createHandler',
      'createOAuth2Handler',
      'section',
    ]);
    // The engine's loader checks `auth.oauth2` with the package's own schema.
    expect(oauth2.section).toBe('oauth2');
    expect(typeof oauth2.configSchema['~standard'].validate).toBe('function');
    expect(oauth2.ANSWER_CACHE_DEFAULTS).toEqual({ maxEntries: 10_000 });
    expect(oauth2.INTROSPECTION_LIMITS).toEqual({
      maxConcurrent: 32,
      refusalCacheSeconds: 10,
      discoveryCooldownSeconds: 30,
    });
  });

  it('authenticates on the real clock when deps.now is left out', async () => {
    const env = { OAUTH2_CLIENT_SECRET: provider.clients.basic.secret };
    const handler = await oauth2.createHandler(oauth2Config(provider), { env, logger: console });
    const context = await handler.authenticate({
      headers: { authorization: `Bearer ${await provider.obtainToken()}` },
    });
    expect(context).toMatchObject({ method: 'oauth2', userId: 'reporting-job' });
  });
});
