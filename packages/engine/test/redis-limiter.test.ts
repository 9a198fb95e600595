import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRedis, type RedisServer } from '@authlayer/testkit';
import { Redis } from 'ioredis';
import type { FailureReservation } from '../src/rate-limit/failure-budget.js';
import { createRateLimits } from '../src/rate-limit/rate-limits.js';

// A client limit of N per minute on Redis, with Redis slower than the store's timeout for a while:
// every request is counted once, so the window admits N, not fewer. Event-driven: the test waits
// for the store's own words (slow, reachable), never for a time; the whole test is well inside
// the minute's window.
describe('a Redis rate limit while Redis answers after the timeout', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  let cases = 0;
  const opened: { close(): void }[] = [];
  afterEach(() => opened.splice(0).forEach((limits) => limits.close()));
  async function limitsOf() {
    const logger = createCaptureLogger();
    const config = { requestsPerMinute: null, failedAuthPerMinute: null, store: redis.url, trustProxy: false };
    const limits = await createRateLimits(config, logger);
    opened.push(limits);
    const client = { requestsPerMinute: 5, quota: null };
    // A client of its own per case: the cases share the Redis server.
    const identity = `api_key:client-${(cases += 1)}`;
    const ask = async () => (await limits.consumeRequest(identity, client)).wait === null;
    return { logger, ask };
  }

  it.each([
    ['1 before, 2 while Redis is frozen', 1, 2],
    ['none before, 3 while Redis is frozen', 0, 3],
    ['4 before, 1 while Redis is frozen', 4, 1],
  ])('a client limit of 5 admits exactly 5 in the window (%s)', async (_name, before, frozen) => {
    const { logger, ask } = await limitsOf();
    const admitted: boolean[] = [];
    for (let i = 0; i < before; i++) admitted.push(await ask());
    redis.pause();
    let slow: Promise<boolean[]>;
    try {
      slow = Promise.all(Array.from({ length: frozen }, ask));
      // The store gave up on Redis: these were answered in memory.
      await logger.waitFor(/^warn: rate_limit: Redis did not answer/);
      admitted.push(...(await slow));
    } finally {
      redis.resume();
    }
    await logger.waitFor(/^info: rate_limit: Redis is reachable/);
    for (let i = 0; i < 8; i++) admitted.push(await ask());
    expect(admitted.filter(Boolean)).toHaveLength(5);
    // Admitted first, then only refusals: no request was counted twice.
    expect(admitted.slice(0, 5)).toEqual([true, true, true, true, true]);
  });
});

// The failed-guess budget on Redis, and a Redis that is gone: the points Redis keeps, the counts
// memory takes over. Each case has its own address or client: they share the Redis server.
describe('a Redis rate limit: points given back, and Redis gone', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('a guess reserved and released gives its point back in Redis; an attempt over the budget gives its own back', async () => {
    const logger = createCaptureLogger();
    const config = { requestsPerMinute: null, failedAuthPerMinute: 1, store: redis.url, trustProxy: false };
    const limits = await createRateLimits(config, logger);
    const direct = new Redis(redis.url);
    try {
      const accepted = (await limits.reserveFailure('192.0.2.10')) as FailureReservation;
      await accepted.release();
      // The point came back: the next guess is reserved, not refused.
      const refused = (await limits.reserveFailure('192.0.2.10')) as FailureReservation;
      refused.keep();
      expect(await limits.reserveFailure('192.0.2.10')).toEqual(expect.any(Number));
      // Redis counts the one kept failure only: the refused attempt's point was given back.
      expect(await direct.get('authlayer:failed_auth:192.0.2.10')).toBe('1');
      expect(logger.text).toEqual([]);
    } finally {
      direct.disconnect();
      limits.close();
    }
  });

  it('Redis gone: one warning, and the limit is counted in memory (a limit of 1 admits 1)', async () => {
    const logger = createCaptureLogger();
    const config = { requestsPerMinute: 1, failedAuthPerMinute: null, store: redis.url, trustProxy: false };
    const limits = await createRateLimits(config, logger);
    try {
      await redis.kill();
      await logger.waitFor(/^warn: rate_limit: Redis is unreachable/);
      const ask = async () => (await limits.consumeRequest('api_key:gone', undefined)).wait;
      expect(await ask()).toBeNull();
      expect(await ask()).toEqual(expect.any(Number));
      expect(logger.text.filter((line) => line.startsWith('warn:'))).toHaveLength(1);
    } finally {
      limits.close();
      await redis.restart();
    }
  });
});
