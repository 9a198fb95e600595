import type { Logger, RateLimitConfig } from '@authlayer/core';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { createFailureBudget, NOTHING_RESERVED, type FailureReservation } from './failure-budget.js';
import { createRedisLimiter, type Limiter } from './redis-limiter.js';
import { connectRedisStore, type RedisStore } from './redis-store.js';

/** The contract's window: limits are per minute. */
const WINDOW_SECONDS = 60;

/** The limits of a config's `rate_limit`; a wait is in milliseconds, `null` when none. */
export interface RateLimits {
  /**
   * Before any verification: reserves one failure of the client address (`failed_auth_per_minute`),
   * or resolves with the wait when the address is over it. See `createFailureBudget`.
   */
  reserveFailure(address: string): Promise<FailureReservation | number>;
  /** After success: counts one request for the identity; over `requests_per_minute` → the wait. */
  consumeRequest(identity: string): Promise<number | null>;
  /** Closes the Redis connection, if any. */
  close(): void;
}

/**
 * Builds the limiters of `rate_limit` with rate-limiter-flexible: in memory, or on Redis with an
 * in-memory insurance limiter that takes over while Redis is down and hands back when it returns.
 * A limiter that errs anyway lets the request through: requests never fail because of the store.
 */
export async function createRateLimits(config: RateLimitConfig, logger: Logger): Promise<RateLimits> {
  const redis = config.store === 'memory' ? null : await connectRedisStore(config.store, logger);
  const requests = limiter(config.requestsPerMinute, 'authlayer:requests', redis);
  const failures = limiter(config.failedAuthPerMinute, 'authlayer:failed_auth', redis);
  const storeFailed = () => logger.warn('rate_limit: the limit store failed; the request was let through');
  // The limiter's windows run on Date.now; the budget asks the same clock.
  const budget = failures === null ? null : createFailureBudget(failures, () => Date.now(), storeFailed);
  return {
    reserveFailure: (address) => budget?.reserve(address) ?? Promise.resolve(NOTHING_RESERVED),
    consumeRequest: async (identity) => {
      if (requests === null) return null;
      return requests.consume(identity).then(
        () => null,
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) return Math.max(rejection.msBeforeNext, 0);
          storeFailed();
          return null;
        },
      );
    },
    close: () => redis?.close(),
  };
}

function limiter(points: number | null, keyPrefix: string, redis: RedisStore | null): Limiter | null {
  if (points === null) return null;
  const options = { points, duration: WINDOW_SECONDS, keyPrefix };
  return redis === null ? new RateLimiterMemory(options) : createRedisLimiter(options, redis);
}
