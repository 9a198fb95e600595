import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRedis, type CaptureLogger, type RedisServer } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

const KEY = 'k3y-for-the-redis-tests';
const LIMIT = 5;

/** One "replica": its own middleware, its own Redis connection, its own memory. */
async function replica(store: string) {
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key' }, rate_limit: { requests_per_minute: LIMIT, failed_auth_per_minute: 2, store } },
    { env: { SERVICE_API_KEY: KEY }, logger },
  );
  const app = express().post('/invoke', auth, (_req, res) => res.json({ ok: true }));
  return { app, auth, logger };
}

type Replica = Awaited<ReturnType<typeof replica>>;

/** Sends `count` requests, alternating between the replicas; the statuses, in order. */
async function alternate(replicas: Replica[], count: number, key = KEY): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const { status } = await request(replicas[i % replicas.length]!.app)
      .post('/invoke')
      .set('X-API-Key', key);
    statuses.push(status);
  }
  return statuses;
}

const ok = (statuses: number[]) => statuses.filter((s) => s === 200).length;
const warned = (logger: CaptureLogger) =>
  logger.text.filter((t) => t.startsWith('warn: rate_limit: Redis is unreachable'));

describe('rate_limit.store redis:// (one limit shared by replicas)', () => {
  let redis: RedisServer;
  let replicas: Replica[];
  beforeAll(async () => {
    redis = await startRedis();
    replicas = [await replica(redis.url), await replica(redis.url)];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.auth.close()));
    await redis.stop();
  });

  it('shares one limit; falls back to per-replica memory while Redis is down; shares again when it is back', async () => {
    const shared = await alternate(replicas, 3 * LIMIT);
    expect(ok(shared)).toBe(LIMIT);
    expect(shared.filter((s) => s !== 200 && s !== 429)).toEqual([]);

    await redis.kill();
    const alone = await alternate(replicas, 4 * LIMIT);
    // No request fails because Redis is down; each replica limits on its own, going on from the
    // last count Redis gave it (the identity had used its limit), not from zero.
    expect(alone.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(ok(alone)).toBe(0);
    for (const { logger } of replicas) expect(warned(logger)).toHaveLength(1);

    await redis.restart();
    await Promise.all(replicas.map(({ logger }) => logger.waitFor(/^info: rate_limit: Redis is reachable/)));
    const again = await alternate(replicas, 3 * LIMIT);
    expect(ok(again)).toBe(LIMIT);
  });

  it('blocks an address on every replica after its failures', async () => {
    await alternate(replicas, 2, 'wrong');
    expect(await alternate(replicas, 2, KEY)).toEqual([429, 429]);
  });
});

describe('rate_limit.store redis:// that stops answering (a stuck or swapping Redis)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('warns once, answers from memory at once, and goes on from the last count Redis gave', async () => {
    const one = await replica(redis.url);
    // failed_auth_per_minute is 2: one failure counted on Redis, then Redis freezes.
    expect(await alternate([one], 1, 'wrong')).toEqual([401]);
    redis.pause();
    // The first request's command times out; from then on memory answers, starting at 1, not 0.
    expect(await alternate([one], 3, 'wrong')).toEqual([401, 429, 429]);
    expect(one.logger.text.filter((t) => t.startsWith('warn: rate_limit: Redis'))).toEqual([
      'warn: rate_limit: Redis did not answer within 250 ms; each process now limits on its own, in memory, until Redis answers again',
    ]);
    redis.resume();
    await one.logger.waitFor(/^info: rate_limit: Redis is reachable/);
    await one.auth.close();
  });
});
