import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { createRemoteKeySet } from '../src/keys/remote-key-set.js';
import { bearer, createClock, jwtConfig, NOW, validClaims } from './fixtures.js';

// Contract, "Live changes without a restart": remote key sets are refreshed in the background
// before they go stale, so after the first fetch no request waits for one while the provider is up.
const DELAY_MS = 1000; // the provider answers this late: a request that waited for it took at least this
const MAX_AGE_S = 10; // on the pinned clock, which moves in seconds
let key: SigningKey;
let jwks: JwksServer;
beforeAll(async () => {
  key = await createSigningKey('ES256');
  jwks = await startJwksServer([key.publicJwk]);
});
afterAll(() => jwks.close());
afterEach(() => jwks.setDelay(0));

/** Resolves after the next key set fetch has been answered and taken in. */
function fetchCounter() {
  let count = 0;
  let waiting: (() => void) | null = null;
  return {
    observe: {
      keyFetch: () => {
        count += 1;
        const done = waiting;
        waiting = null;
        // The set is taken in right after the answer is counted.
        setImmediate(() => done?.());
      },
    },
    get count() {
      return count;
    },
    next: () => new Promise<void>((resolve) => (waiting = resolve)),
  };
}

describe('refresh-ahead', () => {
  it('after the first fetch, no request waits for one: each is verified with the set it has', async () => {
    jwks.setDelay(DELAY_MS);
    const clock = createClock();
    const fetches = fetchCounter();
    const handler = await createJwtHandler(jwtConfig({ jwks_url: jwks.url, algorithms: ['ES256'] }), {
      env: {},
      logger: createCaptureLogger(),
      now: clock.now,
      observe: fetches.observe,
      jwks: { cacheMaxAgeMs: MAX_AGE_S * 1000, timeoutMs: 5000 },
    });
    // A new token each time: a cached verification would not ask the key set at all.
    let serial = 0;
    const timed = async () => {
      const token = await mintToken(key, validClaims({ exp: NOW + 86_400, jti: String((serial += 1)) }));
      const started = performance.now();
      await handler.authenticate(bearer(token));
      return performance.now() - started;
    };
    expect(await timed()).toBeGreaterThanOrEqual(DELAY_MS - 10); // the first fetch: waited for
    const latencies: number[] = [];
    for (let period = 1; period <= 3; period += 1) {
      // Within the age: no fetch at all.
      clock.advance(MAX_AGE_S * 0.5);
      latencies.push(await timed());
      expect(fetches.count).toBe(period);
      // Past 80 % of the age: this request starts the refresh and does not wait for it, nor do
      // the ones that come while it runs, even past the set's age.
      clock.advance(MAX_AGE_S * 0.3);
      const refreshed = fetches.next();
      latencies.push(await timed());
      clock.advance(MAX_AGE_S * 0.3);
      latencies.push(await timed(), await timed());
      await refreshed;
      expect(fetches.count).toBe(period + 1);
      // The new set's age starts when it was taken in.
      clock.advance(-MAX_AGE_S * 0.3);
    }
    // Under the provider's delay: none of them included a fetch (one that did took at least
    // DELAY_MS; half of it could be reached by a request alone on a loaded machine).
    expect(Math.max(...latencies)).toBeLessThan(DELAY_MS);
  });

  it('refreshes a set in use by a timer, without any request, and not one that is idle or closed', async () => {
    const fetches = fetchCounter();
    const settings = { logger: createCaptureLogger(), now: Date.now, staleMs: 60_000, label: 'auth.jwt' };
    const used = createRemoteKeySet(
      { jwksUrl: jwks.url },
      { ...settings, cacheMaxAgeMs: 100, observe: fetches.observe },
    );
    const header = { alg: 'ES256', kid: key.kid ?? undefined };
    await used.getKey(header, { payload: '', signature: '' } as never);
    expect(fetches.count).toBe(1);
    await fetches.next(); // the timer, 80 ms after the first fetch
    expect(fetches.count).toBe(2);
    used.close();

    const idle = fetchCounter();
    const unused = createRemoteKeySet({ jwksUrl: jwks.url }, { ...settings, cacheMaxAgeMs: 50, observe: idle.observe });
    await unused.warm(); // fetched, but never asked for a key
    const closed = createRemoteKeySet({ jwksUrl: jwks.url }, { ...settings, cacheMaxAgeMs: 0, observe: idle.observe });
    closed.close();
    await closed.warm(); // a fetch after close() schedules nothing
    // Bounded: several timer periods of the idle set.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(idle.count).toBe(2);
    unused.close();
  });
});
