import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  startIntrospectionServer,
  startRedis,
  type CaptureLogger,
  type IntrospectionServer,
  type RedisServer,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, type AuthMiddleware } from '../src/index.js';

// auth.oauth2.cache_store on a real redis-server: two middlewares as two replicas, one real
// introspection endpoint that counts what it is asked.
interface Replica {
  readonly auth: AuthMiddleware;
  readonly app: express.Express;
  readonly logger: CaptureLogger;
}

describe('auth.oauth2.cache_store redis:// (introspection answers shared by replicas)', () => {
  let redis: RedisServer;
  let provider: IntrospectionServer;
  let replicas: Replica[];
  const replica = async (): Promise<Replica> => {
    const logger = createCaptureLogger();
    const auth = await createAuthMiddleware(
      {
        auth: {
          mode: 'oauth2',
          oauth2: { introspection_url: provider.url, client_id: provider.clientId, cache_store: redis.url },
        },
        revocation: { store: redis.url },
      },
      { env: { OAUTH2_CLIENT_SECRET: provider.clientSecret }, logger },
    );
    const app = express();
    app.get('/me', auth, (req, res) => res.json(req.auth));
    return { auth, app, logger };
  };
  const askEach = async (token: string) => {
    const statuses: number[] = [];
    for (const { app } of [...replicas, ...replicas]) {
      statuses.push((await request(app).get('/me').set('Authorization', `Bearer ${token}`)).status);
    }
    return statuses;
  };
  beforeAll(async () => {
    redis = await startRedis();
    provider = await startIntrospectionServer();
    replicas = [await replica(), await replica()];
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.auth.close()));
    await Promise.all([redis.stop(), provider.close()]);
  });

  it('one token, two requests on each replica: one introspection', async () => {
    const before = provider.requests;
    expect(await askEach(provider.issueToken({ sub: 'ada' }))).toEqual([200, 200, 200, 200]);
    expect(provider.requests).toBe(before + 1);
    // Inactive answers are never shared: each replica asks (and keeps its refusal a while).
    const unknown = 'an-opaque-token-nobody-issued';
    expect(await askEach(unknown)).toEqual([401, 401, 401, 401]);
    expect(provider.requests).toBe(before + 3);
  });

  it('the revocation list refuses an OAuth2 token by jti or sub on every replica, answers from the caches included', async () => {
    const token = provider.issueToken({ sub: 'ada', jti: 'o-1' });
    expect(await askEach(token)).toEqual([200, 200, 200, 200]);
    const refusedBy = async (replica: Replica) => {
      for (let i = 0; i < 1000; i += 1) {
        const { status } = await request(replica.app).get('/me').set('Authorization', `Bearer ${token}`);
        if (status === 401) return true;
      }
      return false;
    };
    for (const entry of ['jti:o-1', 'sub:ada']) {
      await replicas[0]!.auth.revoke(entry);
      expect(await refusedBy(replicas[1]!)).toBe(true);
      await replicas[1]!.auth.unrevoke(entry);
    }
  });

  it('Redis down: each replica introspects on its own, no request fails, one warning each; back: shared again', async () => {
    await redis.kill();
    const before = provider.requests;
    expect(await askEach(provider.issueToken({ sub: 'grace' }))).toEqual([200, 200, 200, 200]);
    expect(provider.requests).toBe(before + 2);
    for (const { logger } of replicas) {
      await logger.waitFor(/cache_store: Redis is unreachable/);
      expect(logger.text.filter((line) => line.includes('cache_store: Redis is unreachable'))).toEqual([
        'warn: auth.oauth2.cache_store: Redis is unreachable; each process keeps its own cache until it is back',
      ]);
    }
    await redis.restart();
    for (const { logger } of replicas) await logger.waitFor(/cache_store: Redis is reachable/);
    const again = provider.requests;
    expect(await askEach(provider.issueToken({ sub: 'alan' }))).toEqual([200, 200, 200, 200]);
    expect(provider.requests).toBe(again + 1);
  });

  it('Redis frozen: a lookup gives up after 250 ms, with one warning, and the replica introspects', async () => {
    redis.pause();
    try {
      const before = provider.requests;
      const res = await request(replicas[0]!.app)
        .get('/me')
        .set('Authorization', `Bearer ${provider.issueToken({ sub: 'frozen' })}`);
      expect(res.status).toBe(200);
      expect(provider.requests).toBe(before + 1);
      await replicas[0]!.logger.waitFor(/cache_store: Redis did not answer within 250 ms/);
    } finally {
      redis.resume();
    }
  });
});
