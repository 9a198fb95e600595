import { inSpan } from '@authlayer/core/internal';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type IRateLimiterOptions } from 'rate-limiter-flexible';
import type { Limiter, Taken } from './limiter.js';
import type { RedisStore } from './redis-store.js';

const takenOf = (res: RateLimiterRes, over: boolean): Taken => ({
  over,
  remaining: res.remainingPoints,
  msBeforeNext: res.msBeforeNext,
});

/**
 * A limiter on Redis (one limit for every replica) with an in-memory insurance that takes over
 * while Redis is down or slow. Every count Redis answers is copied into the insurance, so a
 * process that falls back goes on from the last count it saw instead of from zero (an address
 * with 19 failures of 20 does not get 20 more). The copy never lengthens a window: its duration
 * is rounded down, and counts the insurance answered itself are not copied.
 */
export function createRedisLimiter(options: IRateLimiterOptions, redis: RedisStore): Limiter {
  // The in-memory stand-in, asked when a Redis call failed or did not answer in time (`inTime`).
  // Not rate-limiter-flexible's insuranceLimiter: a call that fails after `inTime` gave up would
  // count in memory a second time.
  const insurance = new RateLimiterMemory(options);
  const store = new RateLimiterRedis({ ...options, storeClient: redis.client, rejectIfRedisNotReady: true });
  const isOver = (rejection: unknown) => rejection instanceof RateLimiterRes;
  const copy = (key: string, res: RateLimiterRes) => {
    const seconds = Math.floor(res.msBeforeNext / 1000);
    if (seconds > 0) void insurance.set(key, res.consumedPoints, seconds);
  };
  // What Redis answered (a count, or over the limit), copied into the insurance on the way.
  const fromRedis = (key: string, call: Promise<RateLimiterRes>) =>
    call.then(
      (res) => (copy(key, res), res),
      (rejection: unknown) => {
        if (isOver(rejection)) copy(key, rejection as RateLimiterRes);
        throw rejection;
      },
    );
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
      traced('consume', () =>
        redis.inTime(fromRedis(key, store.consume(key, 1, options)), () => insurance.consume(key, 1, options), isOver),
      ).then(
        (res) => takenOf(res, false),
        (rejection: unknown) =>
          isOver(rejection) ? takenOf(rejection as RateLimiterRes, true) : Promise.reject(rejection),
      ),
    reward: (key) =>
      traced('reward', () => redis.inTime(fromRedis(key, store.reward(key)), () => insurance.reward(key))).then(
        () => undefined,
      ),
  };
}
