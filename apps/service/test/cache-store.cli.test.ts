import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startIntrospectionServer, startRedis, type IntrospectionServer, type RedisServer } from '@authlayer/testkit';
import { startService, writeConfig } from './cli.js';

// auth.oauth2.cache_store: two service processes, one real redis-server, one introspection
// endpoint that counts the requests it gets.
type Service = Awaited<ReturnType<typeof startService>>;

describe('oauth2.cache_store, two service processes', () => {
  let redis: RedisServer;
  let provider: IntrospectionServer;
  let replicas: Service[];
  beforeAll(async () => {
    [redis, provider] = await Promise.all([startRedis(), startIntrospectionServer()]);
    const config = writeConfig(
      [
        'auth:',
        '  mode: oauth2',
        '  oauth2:',
        `    introspection_url: ${provider.url}`,
        `    client_id: ${provider.clientId}`,
        `    cache_store: ${redis.url}`,
      ].join('\n'),
    );
    const env = { OAUTH2_CLIENT_SECRET: provider.clientSecret };
    replicas = await Promise.all([0, 1].map(() => startService(['--config', config], env)));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await Promise.all([redis.stop(), provider.close()]);
  });

  it('one token sent twice to each: one introspection at the provider', async () => {
    const token = provider.issueToken({ sub: 'ada', scope: 'invoke' });
    const before = provider.requests;
    for (const replica of [replicas[0]!, replicas[1]!, replicas[0]!, replicas[1]!]) {
      const res = await fetch(`${replica.url}/invoke`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: '{"query":"q"}',
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { auth: { userId: string } }).auth.userId).toBe('ada');
    }
    expect(provider.requests).toBe(before + 1);
    for (const replica of replicas) expect(replica.lines.join('\n')).not.toContain(token);
  });
});
