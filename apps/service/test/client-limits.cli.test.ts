import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startRedis, type RedisServer } from '@authlayer/testkit';
import { startService, writeConfig } from './cli.js';

// API key clients' own limits and quotas on a real redis-server, shared by two service processes.
const KEYS = { billing: 'billing-key-0123456789abcdef', free: 'free-key-0123456789abcdef' };

type Service = Awaited<ReturnType<typeof startService>>;

async function alternate(replicas: Service[], key: string, count: number) {
  const seen: { status: number; state: string | null }[] = [];
  for (let i = 0; i < count; i += 1) {
    const res = await fetch(`${replicas[i % replicas.length]!.url}/invoke`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: '{"query":"r"}',
    });
    await res.text();
    seen.push({ status: res.status, state: res.headers.get('ratelimit') });
  }
  return seen;
}

describe('per-client limits and quotas on redis://, two service processes', () => {
  let redis: RedisServer;
  let replicas: Service[];
  beforeAll(async () => {
    redis = await startRedis();
    const config = writeConfig(
      [
        'auth:',
        '  mode: api_key',
        '  api_keys:',
        '    keys:',
        '      - { name: billing, env_var: BILLING_KEY, requests_per_minute: 3 }',
        '      - { name: free, env_var: FREE_KEY, quota: { requests: 4, per: month } }',
        'rate_limit:',
        '  requests_per_minute: 100',
        `  store: ${redis.url}`,
        'metrics: true',
        '',
      ].join('\n'),
    );
    const env = { BILLING_KEY: KEYS.billing, FREE_KEY: KEYS.free };
    replicas = await Promise.all([0, 1].map(() => startService(['--config', config], env)));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.stop();
  });

  it("holds a client's requests_per_minute across both processes", async () => {
    const seen = await alternate(replicas, KEYS.billing, 5);
    expect(seen.map(({ status }) => status)).toEqual([200, 200, 200, 429, 429]);
    expect(seen.map(({ state }) => state?.replace(/t=\d+/, 't=T'))).toEqual([
      '"minute";r=2;t=T',
      '"minute";r=1;t=T',
      '"minute";r=0;t=T',
      '"minute";r=0;t=T',
      '"minute";r=0;t=T',
    ]);
  });

  it("holds a client's monthly quota across both processes, beside the common per-minute limit", async () => {
    const seen = await alternate(replicas, KEYS.free, 6);
    expect(seen.map(({ status }) => status)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(seen[3]!.state).toMatch(/^"minute";r=96;t=\d+, "month";r=0;t=\d+$/);
  });

  it('counts requests per client with bounded labels: 1 000 random unknown keys add no label value', async () => {
    const before = await metricLines(replicas[0]!);
    for (let i = 0; i < 1000; i += 1) {
      const res = await fetch(`${replicas[0]!.url}/invoke`, {
        method: 'POST',
        headers: {
          'X-API-Key': `unknown-${i}-${Math.random().toString(36).slice(2)}`,
          'Content-Type': 'application/json',
        },
        body: '{"query":"r"}',
      });
      await res.text();
    }
    const after = await metricLines(replicas[0]!);
    const labels = (lines: string[]) => lines.map((line) => line.replace(/ \d+$/, ''));
    expect(labels(after).filter((line) => !labels(before).includes(line))).toEqual([
      'authlayer_api_key_requests_total{client="",outcome="refused"}',
    ]);
    expect(after.find((line) => line.startsWith('authlayer_api_key_requests_total{client="",outcome="refused"}'))).toBe(
      'authlayer_api_key_requests_total{client="",outcome="refused"} 1000',
    );
    expect(labels(after).every((line) => /client="(|billing|free)"/.test(line))).toBe(true);
  });
});

async function metricLines(service: Service): Promise<string[]> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('authlayer_api_key_requests_total{'));
}
