import type { Logger } from '@authlayer/core';
import { Redis } from 'ioredis';

/** A Redis connection for the limiters, and how to close it. */
export interface RedisStore {
  readonly client: Redis;
  close(): void;
}

const UNREACHABLE =
  'rate_limit: Redis is unreachable; each process now limits on its own, in memory, until Redis is back';
const REACHABLE = 'rate_limit: Redis is reachable; limits are shared by every replica';

/**
 * Connects to the `rate_limit.store` URL. Commands fail at once while the connection is down (no
 * offline queue, as rate-limiter-flexible advises), so the limiters fall back to memory at once;
 * ioredis keeps reconnecting, and they return to Redis on `ready`. Logs one warning per outage
 * and one line when Redis is back, never the URL (it may hold a password). Waits for the first
 * connection or the first failure, so a service that starts with Redis up shares from its first
 * request; Redis down at start is not a start-up failure.
 */
export async function connectRedisStore(url: string, logger: Logger): Promise<RedisStore> {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    // Reconnect quickly at first, then every 2 s at most, for as long as the process runs.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  let state: 'starting' | 'up' | 'down' = 'starting';
  const down = () => {
    if (state !== 'down') logger.warn(UNREACHABLE);
    state = 'down';
  };
  client.on('ready', () => {
    if (state === 'down') logger.info(REACHABLE);
    state = 'up';
  });
  client.on('close', down);
  // An 'error' listener is required (ioredis prints unhandled ones); its message is not logged.
  client.on('error', () => {
    if (client.status !== 'ready') down();
  });
  await new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', resolve);
  });
  return { client, close: () => client.disconnect() };
}
