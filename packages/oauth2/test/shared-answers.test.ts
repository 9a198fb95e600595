import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SharedStore } from '@authlayer/core';
import { createCaptureLogger, type OpaqueTokenProvider } from '@authlayer/testkit';
import { createOAuth2Handler } from '../src/oauth2-handler.js';
import { oauth2Config, startProvider } from './provider.js';

// auth.oauth2.cache_store, against the real provider; the store here is a Map behind the
// SharedStore interface (express's Redis store is tested on a real redis-server in express and
// in the service's two-process test).
let provider: OpaqueTokenProvider;
beforeAll(async () => {
  provider = await startProvider();
});
afterAll(() => provider.close());

const STORE = 'redis://:s3cret@127.0.0.1:6379/0';
const refusal = (reason: string) => ({ name: 'AuthError', code: 'unauthorized', status: 401, reason });

/** A SharedStore in memory, that records what it was asked to keep. */
function memoryStore() {
  const values = new Map<string, string>();
  const kept: { key: string; ttlMs: number }[] = [];
  const store: SharedStore = {
    get: async (key) => values.get(key),
    set: async (key, value, ttlMs) => {
      values.set(key, value);
      kept.push({ key, ttlMs });
    },
  };
  return { store, values, kept };
}

async function replica(store: SharedStore, fields: Record<string, unknown> = {}, now = Date.now()) {
  const handler = await createOAuth2Handler(oauth2Config(provider, { cache_store: STORE, ...fields }), {
    env: { OAUTH2_CLIENT_SECRET: provider.clients.basic.secret },
    logger: createCaptureLogger(),
    now: () => now,
    connectStore: async (url, path) => {
      expect([url, path]).toEqual([STORE, 'auth.oauth2.cache_store']);
      return store;
    },
  });
  return (token: string) => handler.authenticate({ headers: { authorization: `Bearer ${token}` } });
}

describe('auth.oauth2.cache_store', () => {
  it('an active answer fetched by one replica serves the other: one introspection', async () => {
    const { store, values, kept } = memoryStore();
    const [a, b] = [await replica(store), await replica(store)];
    const token = await provider.obtainToken();
    const before = provider.introspections;
    const context = await a(token);
    expect(await b(token)).toEqual(context);
    expect(await b(token)).toEqual(context);
    expect(provider.introspections).toBe(before + 1);
    // Keyed by a digest, never the token; kept for cache_seconds (the token lives longer).
    expect(kept).toEqual([
      { key: expect.stringMatching(/^authlayer:introspection:[\w-]{16}:[\w-]{43}$/), ttlMs: 60_000 },
    ]);
    expect(JSON.stringify([...values.keys()])).not.toContain(token);
  });

  it('never shares an inactive answer, and never longer than the answer lives', async () => {
    const { store, kept } = memoryStore();
    const a = await replica(store, { cache_seconds: 3600 });
    const token = await provider.obtainToken();
    await provider.revoke(token);
    await expect(a(token)).rejects.toMatchObject(refusal('credentials_invalid'));
    expect(kept).toEqual([]);
    // The clock is pinned after the token is issued, so its 300 s of life (less than cache_seconds)
    // are counted from no earlier than its iat.
    const fresh = await provider.obtainToken();
    const b = await replica(store, { cache_seconds: 3600 });
    await b(fresh);
    expect(kept[0]!.ttlMs).toBeLessThanOrEqual(300_000);
    expect(kept[0]!.ttlMs).toBeGreaterThan(290_000);
  });

  it('checks a shared answer as its own: an expired one is refused, a garbled one is a miss', async () => {
    const { store, values } = memoryStore();
    const a = await replica(store);
    const token = await provider.obtainToken();
    await a(token);
    const [key] = [...values.keys()];
    const later = await replica(store, {}, Date.now() + 3_600_000);
    await expect(later(token)).rejects.toMatchObject(refusal('token_expired'));
    const before = provider.introspections;
    for (const garbled of ['not json', '[1]', 'null']) {
      values.set(key!, garbled);
      const fresh = await replica(store);
      await fresh(token);
    }
    expect(provider.introspections).toBe(before + 3);
    // An answer without exp (RFC 7662 makes it optional) is kept for cache_seconds.
    values.set(key!, JSON.stringify({ active: true, client_id: 'batch' }));
    expect(await (await replica(store))(token)).toMatchObject({ userId: 'batch' });
    expect(provider.introspections).toBe(before + 3);
  });

  it('a store that fails is a miss: the replica introspects on its own', async () => {
    const failing: SharedStore = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
    };
    const a = await replica(failing);
    const before = provider.introspections;
    await a(await provider.obtainToken());
    expect(provider.introspections).toBe(before + 1);
  });

  it('needs something to connect it, and --check shows it redacted', async () => {
    await expect(
      createOAuth2Handler(oauth2Config(provider, { cache_store: STORE }), {
        env: { OAUTH2_CLIENT_SECRET: 'x' },
        logger: createCaptureLogger(),
      }),
    ).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'auth.oauth2.cache_store: needs a shared store: create the handler with createAuthMiddleware',
    });
    // With discovery, the endpoint comes from the issuer: its answers are scoped by the issuer.
    const discovered = { cache_store: STORE, introspection_url: null, discovery: true, issuer: provider.issuer };
    const handler = await createOAuth2Handler(oauth2Config(provider, discovered), {
      env: { OAUTH2_CLIENT_SECRET: 'x' },
      logger: createCaptureLogger(),
      connectStore: async () => memoryStore().store,
    });
    expect(handler.describe?.()).toMatchObject({ cache_store: 'redis://redacted@127.0.0.1:6379/0' });
  });
});
