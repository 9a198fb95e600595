import { inSpan } from '@authlayer/core/internal';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type IRateLimiterOptions } from 'rate-limiter-flexible';
import type { RedisStore } from './redis-store.js';

/** What the limits ask of a limiter: a point taken, a point given back. */
export interface Limiter {
  /** `customDuration` (seconds): the window of a key this call creates (a quota's period). */
  consume(key: string, options?: { customDuration?: number }): Promise<RateLimiterRes>;
  reward(key: string): Promise<RateLimiterRes>;
}

/**
 * The in-memory stand-in of a Redis limiter. rate-limiter-flexible asks it only when a Redis call
 * failed; one that failed while the connection was up timed out: Redis is slow, and the store is
 * told (it reconnects, so that the next calls come here at once instead of waiting too).
 */
class Insurance extends RateLimiterMemory {
  constructor(
    options: IRateLimiterOptions,
    private readonly failedOver: () => void,
  ) {
    super(options);
  }
  override consume(key: string | number, points?: number, options?: Record<string, unknown>) {
    this.failedOver();
    return super.consume(key, points, options);
  }
  override reward(key: string | number, points?: number, options?: Record<string, unknown>) {
    this.failedOver();
    return super.reward(key, points, options);
  }
}

/**
 * A limiter on Redis (one limit for every replica) with an in-memory insurance that takes over
 * while Redis is down or slow. Every count Redis answers is copied into the insurance, so a
 * process that falls back goes on from the last count it saw instead of from zero (an address
 * with 19 failures of 20 does not get 20 more). The copy never lengthens a window: its duration
 * is rounded down, and counts the insurance answered itself are not copied.
 */
export function createRedisLimiter(options: IRateLimiterOptions, redis: RedisStore): Limiter {
  const insurance = new Insurance(options, redis.failedOver);
  const store = new RateLimiterRedis({
    ...options,
    storeClient: redis.client,
    rejectIfRedisNotReady: true,
    insuranceLimiter: insurance,
  });
  const copy = (key: string, res: RateLimiterRes) => {
    const seconds = Math.floor(res.msBeforeNext / 1000);
    if (redis.client.status === 'ready' && seconds > 0) void insurance.set(key, res.consumedPoints, seconds);
  };
  // One child span per Redis call of the decision; a request over the limit is an answer, not an error.
  const traced = <T>(operation: string, call: () => Promise<T>): Promise<T> =>
    inSpan(`authlayer.redis ${operation}`, { 'db.system': 'redis', 'authlayer.store': 'rate_limit' }, () =>
      call().then(
        (value) => ({ value }),
        (rejection: unknown) => (rejection instanceof RateLimiterRes ? { over: rejection } : Promise.reject(rejection)),
      ),
    ).then((result) => ('over' in result ? Promise.reject(result.over) : result.value));
  return {
    consume: (key, options) =>
      traced('consume', () => store.consume(key, 1, options)).then(
        (res) => (copy(key, res), res),
        (rejection: unknown) => {
          if (rejection instanceof RateLimiterRes) copy(key, rejection);
          throw rejection;
        },
      ),
    reward: (key) => traced('reward', () => store.reward(key)).then((res) => (copy(key, res), res)),
  };
}
