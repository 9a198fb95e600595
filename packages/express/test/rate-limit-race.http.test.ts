import { afterAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  openRawConnection,
  startIntrospectionServer,
  startRedis,
  type IntrospectionServer,
  type RedisServer,
} from '@authlayer/testkit';
import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';
import { countingMode } from './support/counting-mode.js';

// Issue: the limit was checked, the credential verified, and only then the failure recorded, so
// every request parsed in the same turn passed the check (5 000 pipelined wrong keys → 875 verified).
const KEY = 'k3y-for-the-race-tests';
const LIMIT = 5;
const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function limitedApp(rateLimit: object, slow = false, auth: object = { mode: 'api_key' }, env = {}) {
  const { counter, importModule } = countingMode({ slow });
  const middleware = await createAuthMiddleware(
    { auth, rate_limit: { failed_auth_per_minute: LIMIT, ...rateLimit } },
    { env: { SERVICE_API_KEY: KEY, ...env }, logger: createCaptureLogger(), importModule },
  );
  closers.push(() => middleware.close());
  const app = express().post('/invoke', middleware, (_req, res) => res.json({ ok: true }));
  return { app, counter };
}

async function listen(app: express.Express): Promise<string> {
  const server: Server = app.listen(0, '127.0.0.1');
  closers.push(() => server.close());
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** `count` requests written at once on one connection (HTTP/1.1 pipelining); their statuses. */
async function pipelined(origin: string, count: number, key: (i: number) => string): Promise<number[]> {
  const connection = await openRawConnection(origin);
  closers.push(() => connection.destroy());
  const one = (i: number) => `POST /invoke HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key(i)}\r\nContent-Length: 0\r\n\r\n`;
  connection.write(Array.from({ length: count }, (_, i) => one(i)).join(''));
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await connection.nextResponse()).status);
  return statuses;
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((all, s) => ({ ...all, [s]: (all[s] ?? 0) + 1 }), {});

describe('failed_auth_per_minute is reserved before verifying', () => {
  it('memory store: 300 pipelined wrong keys on one connection verify exactly the limit', async () => {
    const { app, counter } = await limitedApp({});
    const statuses = await pipelined(await listen(app), 300, (i) => `wrong-${i}`);
    expect(tally(statuses)).toEqual({ 401: LIMIT, 429: 300 - LIMIT });
    expect(counter.verifications).toBe(LIMIT);
  });

  it('memory store, a verification that waits (a key set, a provider): 200 concurrent wrong keys verify the limit', async () => {
    const { app, counter } = await limitedApp({}, true);
    const origin = await listen(app);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => request(origin).post('/invoke').set('X-API-Key', `wrong-${i}`)),
    ).then((answers) => answers.map((a) => a.status));
    expect(tally(statuses)).toEqual({ 401: LIMIT, 429: 200 - LIMIT });
    expect(counter.verifications).toBe(LIMIT);
  });

  it('valid requests of one address beyond the limit are delayed, never refused: at most the limit in flight', async () => {
    const { app, counter } = await limitedApp({}, true);
    const statuses = await pipelined(await listen(app), 4 * LIMIT, () => KEY);
    expect(tally(statuses)).toEqual({ 200: 4 * LIMIT });
    expect(counter.verifications).toBe(4 * LIMIT);
    expect(counter.maxInFlight).toBeLessThanOrEqual(LIMIT);
  });

  it('a refused guess keeps its point; accepted requests give theirs back', async () => {
    const { app } = await limitedApp({});
    for (let i = 0; i < 3 * LIMIT; i++) await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    for (let i = 0; i < LIMIT; i++) await request(app).post('/invoke').set('X-API-Key', 'wrong').expect(401);
    await request(app).post('/invoke').set('X-API-Key', KEY).expect(429);
  });

  describe('redis store', () => {
    let redis: RedisServer;
    it('200 concurrent connections and 200 pipelined requests with wrong keys verify exactly the limit', async () => {
      redis = await startRedis();
      closers.push(() => redis.stop());
      const { app, counter } = await limitedApp({ store: redis.url });
      const origin = await listen(app);
      const concurrent = await Promise.all(
        Array.from({ length: 200 }, (_, i) => request(origin).post('/invoke').set('X-API-Key', `wrong-${i}`)),
      );
      expect(tally(concurrent.map((a) => a.status))).toEqual({ 401: LIMIT, 429: 200 - LIMIT });
      expect(counter.verifications).toBe(LIMIT);

      // A second replica on the same Redis: the address is already used up there too.
      const other = await limitedApp({ store: redis.url });
      const statuses = await pipelined(await listen(other.app), 200, (i) => `again-${i}`);
      expect(tally(statuses)).toEqual({ 429: 200 });
      expect(other.counter.verifications).toBe(0);
    });
  });

  describe('oauth2', () => {
    let introspection: IntrospectionServer;
    it('100 concurrent distinct unknown tokens from one address cost the limit in introspections', async () => {
      introspection = await startIntrospectionServer();
      closers.push(() => introspection.close());
      const { app } = await limitedApp(
        {},
        false,
        { mode: 'oauth2', oauth2: { introspection_url: introspection.url, client_id: introspection.clientId } },
        { OAUTH2_CLIENT_SECRET: introspection.clientSecret },
      );
      const origin = await listen(app);
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          request(origin).post('/invoke').set('Authorization', `Bearer garbage-${i}`),
        ),
      ).then((answers) => answers.map((a) => a.status));
      expect(tally(statuses)).toEqual({ 401: LIMIT, 429: 100 - LIMIT });
      expect(introspection.requests).toBe(LIMIT);
    });
  });
});
