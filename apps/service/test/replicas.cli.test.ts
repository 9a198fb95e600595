import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, type RedisServer } from '@authlayer/testkit';
import { startService, writeConfig } from './cli.js';

// Two service processes, as two replicas behind a load balancer, sharing one real redis-server.
const KEY = 'replica-test-key-3e9d';
const LIMIT = 4;

type Service = Awaited<ReturnType<typeof startService>>;

/** Sends `count` requests, alternating between the replicas; how many of each status came back. */
async function alternate(replicas: Service[], count: number): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${replicas[i % replicas.length]!.url}/invoke`, {
      method: 'POST',
      headers: { 'X-API-Key': KEY, 'Content-Type': 'application/json' },
      body: '{"query":"r"}',
    });
    await res.text();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  return statuses;
}

describe('rate_limit on redis://, two service processes', () => {
  let redis: RedisServer;
  let replicas: Service[];
  beforeAll(async () => {
    redis = await startRedis();
    const config = writeConfig(
      `auth:\n  mode: api_key\nrate_limit:\n  requests_per_minute: ${LIMIT}\n  store: ${redis.url}\n`,
    );
    replicas = await Promise.all([0, 1].map(() => startService(['--config', config], { SERVICE_API_KEY: KEY })));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.stop();
  });

  it('lets exactly N requests through across both', async () => {
    expect(await alternate(replicas, 3 * LIMIT)).toEqual({ 200: LIMIT, 429: 2 * LIMIT });
  });

  it('Redis killed: no request fails for it, each process warns and limits on its own', async () => {
    await redis.kill();
    // Each goes on in memory from the last count Redis gave it: the limit was used up, so 429.
    expect(await alternate(replicas, 4 * LIMIT)).toEqual({ 429: 4 * LIMIT });
    for (const replica of replicas) {
      const warning = JSON.parse(await replica.waitForLine(/Redis is unreachable/)) as { level: string };
      expect(warning.level).toBe('warn');
    }
  });

  it('Redis restarted: the processes share one limit again', async () => {
    await redis.restart();
    await Promise.all(replicas.map((replica) => replica.waitForLine(/Redis is reachable/)));
    expect(await alternate(replicas, 3 * LIMIT)).toEqual({ 200: LIMIT, 429: 2 * LIMIT });
  });
});
