import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRedis, type RedisServer } from '@authlayer/testkit';
import { execFileSync } from 'node:child_process';
import { connectRedisStore, type RedisStore } from '../src/rate-limit/redis-store.js';

/**
 * Keeps this process busy (the event loop blocked) for at least `ms`, and until Redis has run the
 * last command of the connection named `name` and sent its whole answer (asked synchronously with
 * redis-cli: no answer in the output buffer, `obl=0 oll=0`). An event, not a time, ends the wait,
 * so a slow Redis on a loaded machine cannot make the answer come after the block.
 */
function busyUntilAnswered(url: string, name: string, command: string, ms: number) {
  const until = performance.now() + ms;
  const answered = (line: string) =>
    line.includes(` name=${name} `) && line.includes(` cmd=${command} `) && / obl=0 oll=0 /.test(line);
  for (;;) {
    const clients = execFileSync('redis-cli', ['-u', url, 'CLIENT', 'LIST'], { encoding: 'utf8' });
    if (performance.now() >= until && clients.split('\n').some(answered)) return;
  }
}

/** A promise and its settling functions (Promise.withResolvers, which Node 20 lacks). */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => ([resolve, reject] = [yes, no]));
  return { promise, resolve, reject };
}

describe('a Redis store answers in time or falls back', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  async function store(): Promise<{ store: RedisStore; logger: ReturnType<typeof createCaptureLogger> }> {
    const logger = createCaptureLogger();
    return { store: await connectRedisStore(redis.url, logger), logger };
  }

  it('close() ends the connection without a word: closing is no outage (--check closes at once)', async () => {
    const { store: one, logger } = await store();
    expect(await one.client.ping()).toBe('PONG');
    one.close();
    await new Promise((resolve) => one.client.once('end', resolve));
    expect(logger.text).toEqual([]);
  });

  it('a reply that came while this process was busy past the deadline is read, not taken for a slow Redis', async () => {
    const { store: one, logger } = await store();
    await one.client.set('k', 'from redis');
    await one.client.client('SETNAME', 'busy-reader');
    const answer = one.inTime(one.client.get('k'), () => 'fallback');
    // Redis answers while this process is blocked, and the deadline (250 ms) passes meanwhile.
    busyUntilAnswered(redis.url, 'busy-reader', 'get', 500);
    expect(await answer).toBe('from redis');
    expect(logger.text.filter((t) => t.startsWith('warn:'))).toEqual([]);
    expect(one.client.status).toBe('ready');
    one.close();
  });

  it('a Redis that does not answer: the fallback after the deadline, one warning for the outage', async () => {
    const { store: one, logger } = await store();
    redis.pause();
    try {
      const answers = await Promise.all([
        one.inTime(one.client.get('k'), () => 'fallback'),
        one.inTime(one.client.get('k'), () => 'fallback'),
      ]);
      expect(answers).toEqual(['fallback', 'fallback']);
      await logger.waitFor(/^warn: rate_limit: Redis did not answer within 250 ms/);
    } finally {
      redis.resume();
    }
    await logger.waitFor(/^info: rate_limit: Redis is reachable/);
    expect(logger.text.filter((t) => t.startsWith('warn:'))).toHaveLength(1);
    one.close();
  });

  it('a failed call falls back at once; a refusal the caller calls an answer is passed on', async () => {
    const { store: one } = await store();
    expect(await one.inTime(Promise.reject(new Error('down')), () => 'fallback')).toBe('fallback');
    const refusal = new RangeError('over the limit');
    await expect(
      one.inTime(
        Promise.reject(refusal),
        () => 'fallback',
        (error) => error instanceof RangeError,
      ),
    ).rejects.toBe(refusal);
    one.close();
  });

  it('a call that settles after the deadline is ignored while the fallback works: the fallback answers', async () => {
    const { store: one, logger } = await store();
    for (const settle of ['answers', 'refuses'] as const) {
      const call = deferred<string>();
      const fallback = deferred<string>();
      const asked = deferred<void>();
      const answer = one.inTime(
        call.promise,
        () => (asked.resolve(), fallback.promise),
        (error) => error instanceof RangeError,
      );
      // The deadline passed: the fallback was asked. Then Redis's answer (or refusal) comes, late.
      await asked.promise;
      if (settle === 'answers') call.resolve('from redis, too late');
      else call.reject(new RangeError('over the limit, too late'));
      await call.promise.catch(() => undefined);
      fallback.resolve('from memory');
      expect(await answer).toBe('from memory');
    }
    await logger.waitFor(/^warn: rate_limit: Redis did not answer within 250 ms/);
    one.close();
  });
});
