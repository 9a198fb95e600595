import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSigningKey, mintToken, startRedis, type RedisServer, type SigningKey } from '@authlayer/testkit';
import { Redis } from 'ioredis';
import { runToExit, startService, writeConfig } from './cli.js';

// Redis faults with service processes as replicas on a real redis-server without persistence:
// a restart that empties it, and a freeze (SIGSTOP) with the connections left open.
type Service = Awaited<ReturnType<typeof startService>>;

let key: SigningKey;
const configFor = (store: string) =>
  writeConfig(
    [
      'auth:',
      '  mode: jwt',
      '  jwt: { public_key_env: JWT_SECRET, algorithms: [HS256] }',
      `revocation: { store: "${store}" }`,
    ].join('\n'),
  );
const start = (config: string) => startService(['--config', config], { JWT_SECRET: key.envValue });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function invoke(replica: Service, token: string): Promise<number> {
  const res = await fetch(`${replica.url}/invoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...bearer(token) },
    body: '{"query":"r"}',
  });
  await res.text();
  return res.status;
}

const healthOf = async (replica: Service) =>
  ((await (await fetch(`${replica.url}/healthz`)).json()) as { revocations: string }).revocations;

/** Asks until `check` holds (no bound of ours: the test's timeout is the bound). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('revocations outlive Redis (three service processes, Redis without persistence)', () => {
  let redis: RedisServer;
  let replicas: Service[];
  let config: string;
  let revoked: string;
  beforeAll(async () => {
    key = await createSigningKey('HS256');
    redis = await startRedis();
    config = configFor(redis.url);
    replicas = await Promise.all([0, 1, 2].map(() => start(config)));
    const now = Math.floor(Date.now() / 1000);
    revoked = await mintToken(key, { sub: 'ada', jti: 'r-1', iat: now, exp: now + 3600 });
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await redis.stop();
  });

  it('a restart without persistence: every replica keeps refusing, and one started after refuses too', async () => {
    expect(await runToExit(['--config', config, '--revoke', 'sub:ada', '--ttl', '3600'])).toMatchObject({ code: 0 });
    for (const replica of replicas) await until(async () => (await invoke(replica, revoked)) === 401);
    const direct = new Redis(redis.url, { retryStrategy: () => null });
    direct.on('error', () => {});
    await direct.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    direct.disconnect();
    await redis.restart();
    for (const replica of replicas) await replica.waitForLine(/Redis lost the revocation list/);
    for (const replica of replicas) await until(async () => (await healthOf(replica)) === 'loaded');
    for (const replica of replicas) expect(await invoke(replica, revoked)).toBe(401);
    const later = await start(config);
    replicas.push(later);
    expect(await invoke(later, revoked)).toBe(401);
  });

  it('a frozen Redis (SIGSTOP): /healthz stale, /readyz as for a Redis down, --revoke not applied; SIGCONT: loaded', async () => {
    const [replica] = replicas as [Service];
    redis.pause();
    try {
      await until(async () => (await healthOf(replica)) === 'stale');
      expect((await fetch(`${replica.url}/readyz`)).status).toBe(200);
      expect(await invoke(replica, revoked)).toBe(401);
      const refused = await runToExit(['--config', config, '--revoke', 'sub:frozen']);
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr: 'authlayer: revocation.store: Redis is unreachable; the change was not applied\n',
      });
    } finally {
      redis.resume();
    }
    await until(async () => (await healthOf(replica)) === 'loaded');
  });
});
