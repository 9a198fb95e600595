import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext } from '@authlayer/core';
import { createCaptureLogger, startRedis, type CaptureLogger, type RedisServer } from '@authlayer/testkit';
import { Redis } from 'ioredis';
import { followRevocations, type RevocationStore } from '../src/revocation/revocation-store.js';
import { REVOCATIONS_KEY } from '../src/revocation/revocation-commands.js';

// Three replicas' copies of the list (followRevocations, as each middleware has one) on a real
// redis-server that loses its data: they must never adopt the empty store, and give it the list back.
const T = 1_800_000_000_000;
let clock = T;
const ada = createAuthContext({ method: 'jwt', userId: 'ada', claims: { sub: 'ada', jti: 't-1' } });
const grace = createAuthContext({ method: 'jwt', userId: 'grace', claims: { sub: 'grace', jti: 't-2' } });
const short = createAuthContext({ method: 'jwt', userId: 'lin', claims: { sub: 'lin', jti: 't-3' } });

interface Replica {
  readonly store: RevocationStore;
  readonly logger: CaptureLogger;
  /** Set when the replica's copy, after any change, no longer refused ada or grace. */
  forgot: boolean;
}

async function replica(url: string): Promise<Replica> {
  const logger = createCaptureLogger();
  const store = await followRevocations(url, logger, () => clock);
  const made: Replica = { store, logger, forgot: false };
  store.onChange(() => {
    if (!store.isRevoked(ada) || !store.isRevoked(grace)) made.forgot = true;
  });
  return made;
}

/** Polls `check` until it holds (no bound of ours: the test's timeout is the bound). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

const refusesAll = (target: Replica) => target.store.isRevoked(ada) && target.store.isRevoked(grace);

describe('a Redis that lost its data gets the list back from the replicas', () => {
  let redis: RedisServer;
  let replicas: Replica[];
  let started: Replica[];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(() => {
    for (const target of [...replicas, ...started]) target.store.close();
  });
  afterAll(() => redis.stop());

  /** Three replicas holding ada (1 h), grace (1 h) and lin (60 s, made by the CLI's way: Redis only). */
  async function holding(): Promise<Replica[]> {
    clock = T;
    replicas = await Promise.all([0, 1, 2].map(() => replica(redis.url)));
    started = [];
    const [a, b] = replicas as [Replica, Replica];
    await a.store.revoke('sub:ada', 3600);
    await b.store.revoke('jti:t-2', 3600);
    await a.store.revoke('sub:lin', 60);
    await until(() => replicas.every((target) => refusesAll(target) && target.store.isRevoked(short)));
    for (const target of replicas) target.forgot = false;
    return replicas;
  }

  async function listInRedis(): Promise<string[]> {
    const direct = new Redis(redis.url);
    try {
      return await direct.zrange(REVOCATIONS_KEY, '0', '-1');
    } finally {
      direct.disconnect();
    }
  }

  async function expectGivenBack(): Promise<void> {
    for (const target of replicas) await target.logger.waitFor(/Redis lost the revocation list/);
    await until(() => replicas.every((target) => target.store.state() === 'loaded'));
    expect(replicas.map(refusesAll)).toEqual([true, true, true]);
    // Never forgotten, not for one change: the empty store was never adopted.
    expect(replicas.map((target) => target.forgot)).toEqual([false, false, false]);
    // lin's entry ended (the clock moved past it): not written back, not resurrected.
    expect((await listInRedis()).sort()).toEqual(['jti:t-2', 'sub:ada']);
    const later = await replica(redis.url);
    started.push(later);
    expect([refusesAll(later), later.store.isRevoked(short)]).toEqual([true, false]);
  }

  it('a restart without persistence (SHUTDOWN NOSAVE, then again on the same port)', async () => {
    await holding();
    clock = T + 61_000;
    const direct = new Redis(redis.url, { retryStrategy: () => null });
    direct.on('error', () => {});
    await direct.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    direct.disconnect();
    await redis.restart();
    await expectGivenBack();
  });

  it('FLUSHALL, the connections left open: the heartbeat sees the marker gone', async () => {
    await holding();
    clock = T + 61_000;
    const direct = new Redis(redis.url);
    await direct.flushall();
    direct.disconnect();
    await expectGivenBack();
  });

  it('a store that kept its data (its marker) is loaded as it is: nothing written back', async () => {
    const [a] = (await holding()) as [Replica];
    // Removed in Redis without telling anyone, as an unrevoke a replica missed while away.
    const direct = new Redis(redis.url);
    await direct.zrem(REVOCATIONS_KEY, 'jti:t-2');
    direct.disconnect();
    a.store.close();
    replicas = replicas.slice(1);
    const again = await replica(redis.url);
    started.push(again);
    expect([again.store.isRevoked(ada), again.store.isRevoked(grace)]).toEqual([true, false]);
    expect(again.logger.text.filter((line) => line.includes('lost'))).toEqual([]);
  });
});
