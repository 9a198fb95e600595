import { afterAll, beforeAll } from '@jest/globals';
import { startRedis, type RedisServer } from '@authlayer/testkit';
import { Redis } from 'ioredis';

/** A real redis-server and a plain connection to it for the test's own commands. */
export interface RedisAtHand {
  readonly redis: RedisServer;
  readonly admin: Redis;
}

/**
 * A redis-server on a free port for the describe block that calls it, started before its tests,
 * with `admin` connected to it; both are gone after the block. Read the members inside a test or a
 * hook (they are set by the block's `beforeAll`).
 */
export function useRedis(): RedisAtHand {
  const at = {} as { redis: RedisServer; admin: Redis };
  beforeAll(async () => {
    at.redis = await startRedis();
    at.admin = new Redis(at.redis.url);
  });
  afterAll(async () => {
    at.admin.disconnect();
    await at.redis.stop();
  });
  return at;
}
