import { beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, fromAuthenticateNow, type AuthHandler } from '@authlayer/core';
import { createCaptureLogger, createSigningKey, mintToken, type SigningKey } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

// A synchronous answer of the handler (API key, cached token, static key) calls next() in the
// same turn of the event loop: no promise turn between authentication and the route. A probe
// before the middleware queues a microtask; the route reports whether it ran before it.
const NOW = 1_800_000_000;
const KEY = 'k3y-for-the-same-turn-tests';
let signing: SigningKey;

beforeAll(async () => {
  signing = await createSigningKey('RS256');
});

const turns = new WeakMap<object, { same: boolean }>();
const probe: RequestHandler = (req, _res, next) => {
  const turn = { same: true };
  turns.set(req, turn);
  queueMicrotask(() => {
    turn.same = false;
  });
  next();
};

function appWith(auth: RequestHandler | null) {
  const app = express();
  const route: RequestHandler = (req, res) => res.json({ sameTurn: turns.get(req)?.same, userId: req.auth?.userId });
  app.post('/invoke', probe, ...(auth === null ? [] : [auth]), route);
  return app;
}

async function middleware(config: object, options: object = {}) {
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(config, {
    env: { SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue },
    logger,
    now: () => NOW * 1000,
    ...options,
  });
  return { app: appWith(auth), logger };
}

const withHandler = (handler: AuthHandler) =>
  middleware(
    { auth: { mode: 'api_key' } },
    { importModule: () => Promise.resolve({ createHandler: () => Promise.resolve(handler) }) },
  );

const token = () => mintToken(signing, { sub: 'u-1', exp: NOW + 60 });

describe('next() in the same turn', () => {
  it('the probe sees the same turn without authentication (control)', async () => {
    const res = await request(appWith(null)).post('/invoke').expect(200);
    expect(res.body).toEqual({ sameTurn: true });
  });

  it('API key mode: the route runs in the same turn', async () => {
    const { app } = await middleware({ auth: { mode: 'api_key' } });
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    expect(res.body).toEqual({ sameTurn: true, userId: 'SERVICE_API_KEY' });
  });

  it('JWT with a static key: a fresh token and the same token from the cache, both in the same turn', async () => {
    const { app } = await middleware({ auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_PUBLIC_KEY' } } });
    const sent = await token();
    for (let i = 0; i < 3; i += 1) {
      const res = await request(app).post('/invoke').set('Authorization', `Bearer ${sent}`).expect(200);
      expect(res.body).toEqual({ sameTurn: true, userId: 'u-1' });
    }
  });

  it('rate_limit on the memory store (failures, requests, a quota) keeps the decision in the same turn', async () => {
    const { app } = await middleware({
      auth: {
        mode: 'api_key',
        api_keys: { keys: [{ name: 'c', env_var: 'SERVICE_API_KEY', quota: { requests: 100, per: 'day' } }] },
      },
      rate_limit: { requests_per_minute: 100, failed_auth_per_minute: 100 },
    });
    for (let i = 0; i < 3; i += 1) {
      const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
      expect(res.body).toEqual({ sameTurn: true, userId: 'c' });
      expect(res.headers['ratelimit-policy']).toBe('"minute";q=100;w=60, "day";q=100;w=86400');
    }
  });

  it('several modes on one route keep the chosen mode synchronous', async () => {
    const { app } = await middleware({ auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'JWT_PUBLIC_KEY' } } });
    const byKey = await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    const byToken = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${await token()}`)
      .expect(200);
    expect([byKey.body, byToken.body]).toEqual([
      { sameTurn: true, userId: 'SERVICE_API_KEY' },
      { sameTurn: true, userId: 'u-1' },
    ]);
  });

  it('a handler with only the asynchronous authenticate still works, a turn later', async () => {
    const { app } = await withHandler({
      method: 'api_key',
      authenticate: () => Promise.resolve(createAuthContext({ method: 'api_key', userId: 'late' })),
    });
    const res = await request(app).post('/invoke').expect(200);
    expect(res.body).toEqual({ sameTurn: false, userId: 'late' });
  });
});

describe('a synchronous throw stays fail-closed', () => {
  it('a non-AuthError thrown by authenticateNow is a 500, never a pass, and says nothing of it', async () => {
    const { app, logger } = await withHandler({
      method: 'api_key',
      ...fromAuthenticateNow(() => {
        throw new TypeError(`bug holding ${KEY}`);
      }),
    });
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
    expect(logger.text).toEqual(['error: the POST /invoke handler failed (TypeError)']);
    expect(JSON.stringify(res.body) + logger.text.join()).not.toContain(KEY);
  });

  it('a synchronous AuthError is the 401, and a bodyless request keeps its connection', async () => {
    const { app } = await middleware({ auth: { mode: 'api_key' } });
    const res = await request(app)
      .post('/invoke')
      .set('Connection', 'keep-alive')
      .set('X-API-Key', 'wrong')
      .expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    expect(res.headers.connection).toBe('keep-alive');
  });

  it('an onDecision listener that throws on the synchronous path of a refusal is a 500, never a crash', async () => {
    const { app } = await middleware(
      { auth: { mode: 'api_key' } },
      {
        onDecision: () => {
          throw new Error('audit broke');
        },
      },
    );
    const res = await request(app).post('/invoke').set('X-API-Key', 'wrong').expect(500);
    expect(res.body.sameTurn).toBeUndefined();
  });

  it('an allowed request is reported as its answer starts: a listener that throws then is logged, never a crash', async () => {
    const { app, logger } = await middleware(
      { auth: { mode: 'api_key' } },
      {
        onDecision: () => {
          throw new Error('audit broke');
        },
      },
    );
    await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    expect(logger.text).toContain('error: the onDecision listener failed (Error)');
  });
});
