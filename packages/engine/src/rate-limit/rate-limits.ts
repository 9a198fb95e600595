import type { Logger, RateLimitConfig } from '@authlayer/core';
import { createFailureBudget, NOTHING_RESERVED } from './failure-budget.js';
import type { Limiter } from './limiter.js';
import { createMemoryLimiter } from './memory-limiter.js';
import { createRedisLimiter } from './redis-limiter.js';
import { connectRedisStore, type RedisStore } from './redis-store.js';
import { createRequestLimits } from './request-limits.js';
import type { RateLimits } from './verdicts.js';

export type { RateLimits } from './verdicts.js';

/** The contract's window: limits are per minute. */
const WINDOW_SECONDS = 60;

/**
 * Builds the limiters of `rate_limit`: in memory (fixed windows answered in the same turn), or on
 * Redis with rate-limiter-flexible and an in-memory insurance limiter that takes over while Redis
 * is down and hands back when it returns.
 * A limiter that errs anyway lets the request through: requests never fail because of the store.
 */
export async function createRateLimits(
  config: RateLimitConfig,
  logger: Logger,
  now: () => number = Date.now,
): Promise<RateLimits> {
  const redis = config.store === 'memory' ? null : await connectRedisStore(config.store, logger);
  const failures = limiter(config.failedAuthPerMinute, 'authlayer:failed_auth', redis);
  const storeFailed = () => logger.warn('rate_limit: the limit store failed; the request was let through');
  const consumeRequest = createRequestLimits(
    config.requestsPerMinute,
    (points, keyPrefix, duration) => limiter(points, keyPrefix, redis, duration)!,
    now,
    storeFailed,
  );
  // The limiter's windows run on Date.now; the budget asks the same clock.
  const budget = failures === null ? null : createFailureBudget(failures, () => Date.now(), storeFailed);
  return {
    reserveFailure: (address) => budget?.reserve(address) ?? NOTHING_RESERVED,
    consumeRequest,
    close: () => redis?.close(),
  };
}

function limiter(
  points: number | null,
  keyPrefix: string,
  redis: RedisStore | null,
  duration = WINDOW_SECONDS,
): Limiter | null {
  if (points === null) return null;
  const options = { points, duration, keyPrefix };
  if (redis !== null) return createRedisLimiter(options, redis);
  return createMemoryLimiter(points, duration);
}
