import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRedis } from '@authlayer/testkit';
import { Redis } from 'ioredis';
import { createStoreConnector } from '../src/shared-store/store-connector.js';
import { useRedis } from './support/redis-at-hand.js';

// `auth.oauth2.cache_store` as a handler meets it: stores opened through the middleware's
// connector on a real Redis, shared by every replica; a Redis that is down or silent never fails
// the handler (a miss, a dropped write), and closing the middleware closes every store.

const PATH = 'auth.oauth2.cache_store';

describe('shared stores on Redis', () => {
  const at = useRedis();

  it('what one replica sets, another gets; for the time it was given, no longer', async () => {
    const [one, two] = [createStoreConnector(createCaptureLogger()), createStoreConnector(createCaptureLogger())];
    const [a, b] = [await one.connectStore(at.redis.url, PATH), await two.connectStore(at.redis.url, PATH)];
    expect(await b.get('introspection:d1')).toBeUndefined();
    await a.set('introspection:d1', '{"active":true}', 30_000);
    expect(await b.get('introspection:d1')).toBe('{"active":true}');
    const ttl = await at.admin.pttl('introspection:d1');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    one.close();
    two.close();
  });

  it('a silent Redis: a get is a miss and a set is dropped, with one warning that names the field', async () => {
    const logger = createCaptureLogger();
    const connector = createStoreConnector(logger);
    const store = await connector.connectStore(at.redis.url, PATH);
    await store.set('introspection:d2', 'kept', 60_000);
    at.redis.pause();
    try {
      const answers = await Promise.all([store.get('introspection:d2'), store.set('introspection:d3', 'lost', 60_000)]);
      expect(answers).toEqual([undefined, undefined]);
      await logger.waitFor(new RegExp(`^warn: ${PATH.replaceAll('.', '\\.')}: Redis did not answer within 250 ms`));
    } finally {
      at.redis.resume();
    }
    await logger.waitFor(/^info: auth\.oauth2\.cache_store: Redis is reachable; the cache is shared/);
    expect(await store.get('introspection:d2')).toBe('kept');
    expect(logger.text.filter((line) => line.startsWith('warn:'))).toHaveLength(1);
    connector.close();
  });

  it('a Redis that is down: the store still opens, and every call is a miss', async () => {
    const down = await startRedis();
    const url = down.url;
    await down.stop();
    const logger = createCaptureLogger();
    const connector = createStoreConnector(logger);
    const store = await connector.connectStore(url, PATH);
    expect(await store.get('introspection:d4')).toBeUndefined();
    await expect(store.set('introspection:d4', 'x', 1_000)).resolves.toBeUndefined();
    await logger.waitFor(/^warn: auth\.oauth2\.cache_store: Redis is unreachable; each process keeps its own cache/);
    connector.close();
  });

  it("closing the connector ends every store's connection; a store closed is a miss, not a crash", async () => {
    const connector = createStoreConnector(createCaptureLogger());
    const stores = [
      await connector.connectStore(at.redis.url, PATH),
      await connector.connectStore(at.redis.url, 'other'),
    ];
    await Promise.all(stores.map((store) => store.get('warm')));
    const before = await clientCount(at.admin);
    connector.close();
    // Asked until the server sees both connections go: an event of the server, not a delay.
    while ((await clientCount(at.admin)) > before - 2) await at.admin.ping();
    expect(await stores[0]!.get('warm')).toBeUndefined();
  });
});

/** How many clients the server has connected now. */
async function clientCount(admin: Redis): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  return list.trim().split('\n').length;
}
