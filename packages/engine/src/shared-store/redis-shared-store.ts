import { inSpan } from '@authlayer/core/internal';
import type { Logger, SharedStore } from '@authlayer/core';
import { connectRedisStore } from '../rate-limit/redis-store.js';

/**
 * A {@link SharedStore} on Redis, for the field at `path` (`auth.oauth2.cache_store`): the
 * connection of the rate limits (commands fail at once while Redis is down, after 250 ms while it
 * does not answer, with one warning per outage), and no failure ever reaches the handler: a `get`
 * Redis cannot answer is a miss, a `set` it cannot take is dropped.
 */
export async function connectSharedStore(
  url: string,
  path: string,
  logger: Logger,
): Promise<SharedStore & { close(): void }> {
  const redis = await connectRedisStore(url, logger, {
    unreachable: `${path}: Redis is unreachable; each process keeps its own cache until it is back`,
    reachable: `${path}: Redis is reachable; the cache is shared by every replica again`,
    slow: `${path}: Redis did not answer within 250 ms; each process keeps its own cache until it answers again`,
  });
  return {
    // A child span per call; the key is a digest of a token, and is never an attribute.
    get: (key) =>
      inSpan('authlayer.redis get', { 'db.system': 'redis', 'authlayer.store': path }, () =>
        redis.inTime(
          redis.client.get(key).then((value) => value ?? undefined),
          () => undefined,
        ),
      ),
    set: (key, value, ttlMs) =>
      inSpan('authlayer.redis set', { 'db.system': 'redis', 'authlayer.store': path }, () =>
        redis.inTime(
          redis.client.set(key, value, 'PX', ttlMs).then(() => undefined),
          () => undefined,
        ),
      ),
    close: redis.close,
  };
}
