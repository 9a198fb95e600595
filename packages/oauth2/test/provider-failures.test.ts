import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { startLoopbackServer, type IntrospectionMode, type OpaqueTokenProvider } from '@authlayer/testkit';
import { handlerFor, oauth2Config, startProvider } from './provider.js';

let provider: OpaqueTokenProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterEach(() => provider.setMode('ok'));
afterAll(() => provider.close());

const UNAVAILABLE = {
  name: 'AuthError',
  status: 401,
  reason: 'key_unavailable',
  message: 'no key is available to verify the token',
};
// Short, since a hanging provider costs the test this much; long enough that a provider that does
// answer is never timed out on a loaded machine (the recovery below must be answered in time).
const TIMEOUT_MS = 1000;

describe('the provider down, slow or garbled → 401 key_unavailable, bounded by timeout_ms', () => {
  it.each([
    ['fail', 'not a 200'],
    ['hang', 'timed out'],
    ['garbage', 'not a JSON object'],
    ['html', 'not a JSON object'],
  ] as [IntrospectionMode, string][])('mode %s', async (mode, cause) => {
    const { authenticate, logger } = await handlerFor(
      oauth2Config(provider, { timeout_ms: TIMEOUT_MS }),
      provider.clients.basic.secret,
    );
    const token = await provider.obtainToken();
    provider.setMode(mode);
    // No clock: a hanging provider never answers, so an answer at all (with the cause "timed out")
    // shows timeout_ms ended the wait; without it the request would wait until jest's timeout.
    await expect(authenticate(token)).rejects.toMatchObject(UNAVAILABLE);
    await expect(authenticate(token)).rejects.toMatchObject(UNAVAILABLE);
    // One warning per outage, with a cause and never the token, the secret or the answer.
    expect(logger.text).toEqual([
      `warn: auth.oauth2: the introspection endpoint cannot be used (${cause}); tokens are refused until it can`,
    ]);
    provider.setMode('ok');
    expect((await authenticate(token)).userId).toBe('reporting-job');
    expect(logger.text[1]).toBe('info: auth.oauth2: the introspection endpoint answers again');
  });

  it('is unready while the provider fails, and ready again once it answers', async () => {
    const { handler, authenticate } = await handlerFor(oauth2Config(provider), provider.clients.basic.secret);
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'not_fetched' });
    provider.setMode('fail');
    await expect(authenticate('some-token')).rejects.toMatchObject(UNAVAILABLE);
    expect(handler.readiness?.()).toEqual({ ready: false, keys: 'unavailable' });
    provider.setMode('ok');
    await expect(authenticate('some-token')).rejects.toMatchObject({ reason: 'credentials_invalid' });
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'fresh' });
  });

  it('says key_unavailable when nothing listens at the endpoint', async () => {
    const closed = await startLoopbackServer(() => undefined);
    await closed.close();
    const { authenticate, logger } = await handlerFor(
      oauth2Config(provider, { introspection_url: `${closed.origin}/introspect` }),
      's',
    );
    await expect(authenticate('some-token')).rejects.toMatchObject(UNAVAILABLE);
    expect(logger.text).toEqual([
      'warn: auth.oauth2: the introspection endpoint cannot be used (unreachable); tokens are refused until it can',
    ]);
  });

  it('shares one failing request among concurrent requests, and caches nothing of it', async () => {
    const { authenticate } = await handlerFor(oauth2Config(provider), provider.clients.basic.secret);
    const token = await provider.obtainToken();
    provider.setMode('fail');
    const before = provider.introspections;
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => authenticate(token)));
    expect(outcomes.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(provider.introspections).toBe(before + 1);
    provider.setMode('ok');
    expect((await authenticate(token)).method).toBe('oauth2');
  });
});
