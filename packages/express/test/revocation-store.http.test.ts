import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startRedis,
  type CaptureLogger,
  type RedisServer,
  type SigningKey,
} from '@authlayer/testkit';
import express from 'express';
import { Redis } from 'ioredis';
import request from 'supertest';
import { connectRevocations, createAuthMiddleware, type AuthMiddleware } from '../src/index.js';

// revocation.store on a real redis-server, two middlewares as two replicas (each its own copy).
const T = 1_800_000_000_000;
const BILLING_KEY = 'billing-key-0123456789abcdef';
let clock = T;
let key: SigningKey;

interface Replica {
  readonly auth: AuthMiddleware;
  readonly app: express.Express;
  readonly logger: CaptureLogger;
}

// Tokens tied to one issuer and this API (a config without them warns at start-up).
const [ISSUER, AUDIENCE] = ['https://idp.example.com', 'me-api'];
const TIED = { iss: ISSUER, aud: AUDIENCE };

async function replica(store: string): Promise<Replica> {
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: ['api_key', 'jwt'],
        api_keys: { keys: [{ name: 'billing', env_var: 'BILLING_KEY' }] },
        jwt: { public_key_env: 'JWT_SECRET', algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE },
      },
      revocation: { store },
    },
    { env: { JWT_SECRET: key.envValue, BILLING_KEY }, logger, now: () => clock },
  );
  const app = express();
  app.get('/me', auth, (req, res) => res.json(req.auth));
  return { auth, app, logger };
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const statusOf = async (target: Replica, headers: Record<string, string>) =>
  (await request(target.app).get('/me').set(headers)).status;

/**
 * The contract's bound (a revocation reaches every replica within 1 s), with headroom: measured
 * from the event (asking starts once `revoke()`/`unrevoke()` returned), and ten times the bound,
 * as a loaded 2-core machine runs ten times slower (jest.preset.js). The change travels as one
 * Redis message with no timer or poll on the way, so alone it takes one request's time; a replica
 * that did not learn from the message (only at a restart or a reload) still fails.
 */
const BOUND_MS = 10 * 1000;

/** Asks until `expected` comes back, for at most {@link BOUND_MS} after the change was made. */
async function until(target: Replica, headers: Record<string, string>, expected: number) {
  const changed = performance.now();
  while ((await statusOf(target, headers)) !== expected) {
    if (performance.now() - changed > BOUND_MS) throw new Error(`not ${expected} within ${BOUND_MS} ms`);
  }
}

describe('revocation.store redis:// (every replica enforces one list)', () => {
  let redis: RedisServer;
  let a: Replica;
  let b: Replica;
  let token: string;
  beforeAll(async () => {
    key = await createSigningKey('HS256');
    token = await mintToken(key, { ...TIED, sub: 'ada', jti: 't-1', iat: T / 1000, exp: T / 1000 + 3600 });
    redis = await startRedis({ appendOnly: true });
    [a, b] = [await replica(redis.url), await replica(redis.url)];
  });
  afterAll(async () => {
    await Promise.all([a, b].map((r) => r.auth.close()));
    await redis.stop();
  });

  it('a token revoked on one replica is refused on both, cache hits included; unrevoked, accepted again', async () => {
    expect(a.auth.readiness()).toEqual({ ready: true, revocations: 'loaded' });
    for (const target of [a, b, a, b]) expect(await statusOf(target, bearer(token))).toBe(200);
    const made = await a.auth.revoke('jti:t-1', { ttlSeconds: 60 });
    expect(made).toEqual({ entry: 'jti:t-1', expiresAt: new Date(T + 60_000).toISOString() });
    // The replica that made the change refuses at once; the other once Redis told it.
    const res = await request(a.app).get('/me').set(bearer(token)).expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the token has been revoked' });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="invalid_token", error_description="the token has been revoked", ApiKey realm="authlayer", header="X-API-Key"',
    );
    await until(b, bearer(token), 401);
    expect(await a.auth.revocations()).toEqual([made]);
    expect(await b.auth.unrevoke('jti:t-1')).toBe(true);
    expect(await b.auth.unrevoke('jti:t-1')).toBe(false);
    await until(a, bearer(token), 200);
    expect(JSON.stringify([a.logger.lines, b.logger.lines])).not.toContain(token);
  });

  it('sub:<name> revokes an API key client, with the ApiKey challenge; the entry ends with its ttl', async () => {
    const apiKey = { 'X-API-Key': BILLING_KEY };
    expect(await statusOf(b, apiKey)).toBe(200);
    await a.auth.revoke('sub:billing', { ttlSeconds: 30 });
    await until(b, apiKey, 401);
    const res = await request(b.app).get('/me').set(apiKey).expect(401);
    // The reason stays token_revoked (the contract's); the words name what the client holds: a key.
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the key has been revoked' });
    expect(res.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", error="invalid_token", error_description="the key has been revoked"',
    );
    // The same subject's tokens too: the list is asked for every mode.
    await a.auth.revoke('sub:ada');
    await until(b, bearer(token), 401);
    clock = T + 30_000;
    expect([await statusOf(a, apiKey), await statusOf(b, apiKey)]).toEqual([200, 200]);
    expect((await a.auth.revocations()).map((revocation) => revocation.entry)).toEqual(['sub:ada']);
    await a.auth.unrevoke('sub:ada');
    await until(b, bearer(token), 200);
  });

  it('auth.access and auth.optional ask the list too', async () => {
    const app = express();
    app.use(a.auth.access);
    app.get('/report', (req, res) => res.json(req.auth));
    app.get('/me-optional', a.auth.optional, (req, res) => res.json(req.auth));
    await a.auth.revoke('jti:t-1');
    await request(app).get('/report').set(bearer(token)).expect(401);
    await request(app).get('/me-optional').set(bearer(token)).expect(401);
    await a.auth.unrevoke('jti:t-1');
    await request(app).get('/report').set(bearer(token)).expect(200);
  });

  it('Redis frozen: no request waits for it, and what is known stays enforced', async () => {
    await a.auth.revoke('jti:t-1');
    await until(b, bearer(token), 401);
    redis.pause();
    try {
      const took: number[] = [];
      for (const target of [a, b, a, b]) {
        for (const [headers, status] of [
          [bearer(token), 401],
          [{ 'X-API-Key': BILLING_KEY }, 200],
        ] as const) {
          const started = performance.now();
          expect(await statusOf(target, headers)).toBe(status);
          took.push(performance.now() - started);
        }
      }
      // None waited for a Redis that does not answer: one that did would have taken at least its
      // 2 s command timeout. (Eight under 1 s together could fail on a loaded machine.)
      expect(Math.max(...took)).toBeLessThan(2000);
    } finally {
      redis.resume();
    }
    await a.auth.unrevoke('jti:t-1');
    await until(b, bearer(token), 200);
  });

  it('Redis paused during revoke(): the outcome is unknown (it may be applied), and calling it again is safe', async () => {
    redis.pause();
    let refused: unknown;
    try {
      refused = await a.auth.revoke('sub:paused', { ttlSeconds: 60 }).catch((error: unknown) => error);
    } finally {
      redis.resume();
    }
    expect(refused).toMatchObject({
      message:
        'revocation.store: Redis did not answer in time; the outcome is unknown (the change may have been applied); calling it again is safe',
    });
    // The command waited in the paused server and ran once it went on: the change was made after all.
    await a.auth.revoke('sub:paused', { ttlSeconds: 60 });
    expect((await a.auth.revocations()).filter((entry) => entry.entry === 'sub:paused')).toHaveLength(1);
    await a.auth.unrevoke('sub:paused');
  });

  it('refuses bad entries and ttls with a TypeError', async () => {
    await expect(a.auth.revoke('ada')).rejects.toThrow(TypeError);
    await expect(a.auth.revoke('sub:ada', { ttlSeconds: 0 })).rejects.toThrow(TypeError);
    await expect(a.auth.unrevoke('')).rejects.toThrow(TypeError);
  });

  it('Redis down: the known list stays enforced, one warning each; back: loaded again in full', async () => {
    await a.auth.revoke('jti:t-1');
    await until(b, bearer(token), 401);
    // Written to Redis without telling anyone: only a full load can find it.
    const direct = new Redis(redis.url);
    const other = await mintToken(key, { ...TIED, sub: 'grace', jti: 't-9', iat: T / 1000, exp: T / 1000 + 3600 });
    await direct.zadd('authlayer:revocations', T + 3_600_000, 'sub:grace');
    direct.disconnect();
    expect(await statusOf(b, bearer(other))).toBe(200);

    await redis.kill();
    for (const target of [a, b, a, b]) expect(await statusOf(target, bearer(token))).toBe(401);
    // Nothing was sent: the change was not applied, and the caller is told so.
    await expect(a.auth.revoke('sub:x')).rejects.toMatchObject({
      message:
        'revocation.store: Redis is unreachable; the change was not applied (nothing was sent); make it again once Redis is back',
    });
    await expect(b.auth.revocations()).rejects.toThrow('revocation.store: Redis did not answer');
    const warned = (logger: CaptureLogger) => logger.text.filter((line) => line.includes('Redis is unreachable'));
    for (const { logger } of [a, b]) {
      await logger.waitFor(/Redis is unreachable/);
      expect(warned(logger)).toEqual([
        'warn: revocation.store: Redis is unreachable; the revocations known here stay enforced, and changes arrive once it is back',
      ]);
    }
    expect(b.auth.readiness()).toEqual({ ready: true, revocations: 'stale' });

    await redis.restart();
    for (const { logger } of [a, b]) await logger.waitFor(/loaded again/);
    for (const target of [a, b]) {
      expect(await statusOf(target, bearer(other))).toBe(401);
      expect(await statusOf(target, bearer(token))).toBe(401);
      expect(target.auth.readiness()).toEqual({ ready: true, revocations: 'loaded' });
      expect(warned(target.logger)).toHaveLength(1);
    }
  });
});

describe('revocation.store: Redis down at start', () => {
  it('starts with a warning, not ready (revocations unavailable) until the list is loaded', async () => {
    key ??= await createSigningKey('HS256');
    const redis = await startRedis();
    await redis.kill();
    const down = await replica(redis.url);
    try {
      expect(down.auth.readiness()).toEqual({ ready: false, revocations: 'unavailable' });
      expect(down.logger.text).toEqual([
        'warn: revocation.store: Redis is unreachable; the revocation list is not loaded (/readyz: revocations unavailable) until it is back',
      ]);
      expect(await statusOf(down, { 'X-API-Key': BILLING_KEY })).toBe(200);
      await redis.restart();
      await down.logger.waitFor(/loaded again \(0 entries\)/);
      expect(down.auth.readiness()).toEqual({ ready: true, revocations: 'loaded' });
    } finally {
      await down.auth.close();
      await redis.stop();
    }
  });

  it('without revocation.store there is no list: revoke says so', async () => {
    const auth = await createAuthMiddleware({ auth: { mode: 'api_key' } }, { env: { SERVICE_API_KEY: BILLING_KEY } });
    await expect(auth.revoke('sub:ada')).rejects.toThrow('revocation.store is not configured');
    await expect(auth.unrevoke('sub:ada')).rejects.toThrow('revocation.store is not configured');
    await expect(auth.revocations()).rejects.toThrow('revocation.store is not configured');
    expect(auth.readiness()).toEqual({ ready: true });
  });
});

describe('connectRevocations (the command line, a tool of your own)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('revokes, lists, unrevokes; firstSeen is true once per key within its ttl', async () => {
    const admin = await connectRevocations({ store: redis.url }, () => T);
    try {
      expect(await admin.revoke('sub:ada', 60)).toEqual({
        entry: 'sub:ada',
        expiresAt: new Date(T + 60_000).toISOString(),
      });
      expect(await admin.list()).toEqual([{ entry: 'sub:ada', expiresAt: new Date(T + 60_000).toISOString() }]);
      expect([await admin.unrevoke('sub:ada'), await admin.unrevoke('sub:ada')]).toEqual([true, false]);
      expect([await admin.firstSeen('proof-1', 60_000), await admin.firstSeen('proof-1', 60_000)]).toEqual([
        true,
        false,
      ]);
      expect(await admin.firstSeen('proof-2', 60_000)).toBe(true);
    } finally {
      admin.close();
    }
  });

  it('a list that cannot be loaded (the key holds something else): one warning, tried again until it loads', async () => {
    key ??= await createSigningKey('HS256');
    const direct = new Redis(redis.url);
    await direct.set('authlayer:revocations', 'not a sorted set');
    const broken = await replica(redis.url);
    try {
      // A message that is not a change is ignored.
      await direct.publish('authlayer:revocations', 'garbage');
      expect(broken.logger.text).toEqual([
        'warn: revocation.store: the revocation list could not be loaded from Redis; trying again',
      ]);
      expect(broken.auth.readiness()).toEqual({ ready: false, revocations: 'unavailable' });
      await direct.del('authlayer:revocations');
      await broken.logger.waitFor(/loaded again \(0 entries\)/);
      expect(broken.auth.readiness()).toEqual({ ready: true, revocations: 'loaded' });
    } finally {
      direct.disconnect();
      await broken.auth.close();
    }
  });

  it('Redis unreachable: a clear error, without the URL', async () => {
    const gone = await startRedis();
    await gone.kill();
    const secret = gone.url.replace('redis://', 'redis://:s3cret@');
    await expect(connectRevocations({ store: secret })).rejects.toThrow(
      new Error('revocation.store: Redis is unreachable'),
    );
  });
});
