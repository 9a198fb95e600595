import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  startLoopbackServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import type { JWK } from 'jose';
import { createJwtHandler } from '../src/index.js';
import { createRemoteKeySet } from '../src/keys/remote-key-set.js';
import { bearer, createClock, jwtConfig, NOW, validClaims } from './fixtures.js';

// Contract, "Live changes without a restart": remote key sets are refreshed in the background
// before they go stale, so after the first fetch no request waits for one while the provider is up.
// No clock: the provider of the first test answers a fetch only when the test releases it, so a
// request that waited for a fetch could not resolve before the release.
const MAX_AGE_S = 10; // on the pinned clock, which moves in seconds
let key: SigningKey;
let jwks: JwksServer;
beforeAll(async () => {
  key = await createSigningKey('ES256');
  jwks = await startJwksServer([key.publicJwk]);
});
afterAll(() => jwks.close());

/** A JWKS endpoint that holds every fetch until {@link release}; `asked` resolves when one arrives. */
async function heldJwks(jwk: JWK) {
  const held: (() => void)[] = [];
  let arrived: () => void = () => undefined;
  const server = await startLoopbackServer((request, response) => {
    request.resume();
    held.push(() =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    arrived();
  });
  return {
    url: `${server.origin}/jwks`,
    /** Resolves when a fetch is held (at once if one already is). */
    asked: () => new Promise<void>((resolve) => (held.length > 0 ? resolve() : (arrived = resolve))),
    release: () => held.splice(0).forEach((answer) => answer()),
    close: () => server.close(),
  };
}

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
    const provider = await heldJwks(key.publicJwk);
    const clock = createClock();
    const fetches = fetchCounter();
    const handler = await createJwtHandler(jwtConfig({ jwks_url: provider.url, algorithms: ['ES256'] }), {
      env: {},
      logger: createCaptureLogger(),
      now: clock.now,
      observe: fetches.observe,
      // Far longer than a held fetch waits for its release: a request that waited would show.
      jwks: { cacheMaxAgeMs: MAX_AGE_S * 1000, timeoutMs: 60_000 },
    });
    // A new token each time: a cached verification would not ask the key set at all.
    let serial = 0;
    const authenticate = async () => {
      const token = await mintToken(key, validClaims({ exp: NOW + 86_400, jti: String((serial += 1)) }));
      return handler.authenticate(bearer(token));
    };
    // The first fetch is waited for: the request is still unanswered once the fetch is held.
    let first = false;
    const firstAnswered = authenticate().then(() => (first = true));
    await provider.asked();
    await new Promise((resolve) => setImmediate(resolve));
    expect(first).toBe(false);
    provider.release();
    await firstAnswered;
    for (let period = 1; period <= 3; period += 1) {
      // Within the age: no fetch at all.
      clock.advance(MAX_AGE_S * 0.5);
      await authenticate();
      expect(fetches.count).toBe(period);
      // Past 80 % of the age: this request starts the refresh and does not wait for it, nor do
      // the ones that come while it runs, even past the set's age. The refresh is held until
      // after they are all answered.
      clock.advance(MAX_AGE_S * 0.3);
      const refreshed = fetches.next();
      await authenticate();
      clock.advance(MAX_AGE_S * 0.3);
      await Promise.all([authenticate(), authenticate()]);
      await provider.asked();
      expect(fetches.count).toBe(period);
      provider.release();
      await refreshed;
      expect(fetches.count).toBe(period + 1);
      // The new set's age starts when it was taken in.
      clock.advance(-MAX_AGE_S * 0.3);
    }
    await provider.close();
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
    // A set in use with the idle one's age, as a witness: its first fetch, then four refreshes by its
    // timer (it is asked for a key in each period): four timer periods of the idle set too, no clock.
    const witness = fetchCounter();
    const busy = createRemoteKeySet(
      { jwksUrl: jwks.url },
      { ...settings, cacheMaxAgeMs: 50, observe: witness.observe },
    );
    for (let period = 0; period < 5; period += 1) {
      const refreshed = witness.next();
      await busy.getKey(header, { payload: '', signature: '' } as never);
      await refreshed;
    }
    busy.close();
    expect(idle.count).toBe(2);
    unused.close();
  });
});
