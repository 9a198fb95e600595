import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRedis, type RedisServer } from '@authlayer/testkit';
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
