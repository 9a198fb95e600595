import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';
import { periodOf } from '@authlayer/engine/internal';

// Per-client limits and quotas of API key clients, on the memory store, with a pinned clock.
const KEYS = {
  billing: 'billing-key-0123456789abcdef',
  free: 'free-key-0123456789abcdef',
  plain: 'plain-key-0123456789abcdef',
};

async function appAt(clock: { now: number }, rateLimit: object = {}) {
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'api_key',
        api_keys: {
          keys: [
            { name: 'billing', env_var: 'BILLING', requests_per_minute: 3 },
            { name: 'free', env_var: 'FREE', quota: { requests: 2, per: 'day' } },
            { name: 'plain', env_var: 'PLAIN' },
          ],
        },
      },
      rate_limit: { requests_per_minute: 5, ...rateLimit },
    },
    {
      env: { BILLING: KEYS.billing, FREE: KEYS.free, PLAIN: KEYS.plain },
      logger: createCaptureLogger(),
      now: () => clock.now,
    },
  );
  const app = express();
  app.get('/x', auth, (_req, res) => res.json({ ok: true }));
  return { app, auth };
}

const statuses = async (app: express.Express, key: string, count: number) => {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) out.push((await request(app).get('/x').set('X-API-Key', key)).status);
  return out;
};

describe('per-client limits', () => {
  it("a client's requests_per_minute takes the place of rate_limit's; the others keep the common one", async () => {
    const { app, auth } = await appAt({ now: Date.UTC(2026, 10, 25, 12) });
    expect(await statuses(app, KEYS.billing, 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses(app, KEYS.plain, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    await auth.close();
  });

  it('answers with exact RateLimit-Policy and RateLimit headers, and Retry-After on the 429', async () => {
    const { app, auth } = await appAt({ now: Date.UTC(2026, 10, 25, 12) });
    const first = await request(app).get('/x').set('X-API-Key', KEYS.billing).expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"minute";q=3;w=60');
    expect(first.headers['ratelimit']).toBe('"minute";r=2;t=60');
    await request(app).get('/x').set('X-API-Key', KEYS.billing).expect(200);
    const last = await request(app).get('/x').set('X-API-Key', KEYS.billing).expect(200);
    expect(last.headers['ratelimit']).toBe('"minute";r=0;t=60');
    const over = await request(app).get('/x').set('X-API-Key', KEYS.billing).expect(429);
    expect(over.headers['ratelimit']).toBe('"minute";r=0;t=60');
    expect(over.headers['retry-after']).toBe('60');
    expect(over.body).toEqual({
      error: 'rate_limited',
      message: 'too many requests; retry after the number of seconds in Retry-After',
    });
    await auth.close();
  });

  it('a day quota counts across minutes, refuses past it until the UTC day ends, and starts again at midnight', async () => {
    const clock = { now: Date.UTC(2026, 10, 25, 23, 59, 0) };
    const { app, auth } = await appAt(clock, { requests_per_minute: null });
    const first = await request(app).get('/x').set('X-API-Key', KEYS.free).expect(200);
    expect(first.headers['ratelimit-policy']).toBe('"day";q=2;w=86400');
    expect(first.headers['ratelimit']).toBe('"day";r=1;t=60');
    await request(app).get('/x').set('X-API-Key', KEYS.free).expect(200);
    clock.now = Date.UTC(2026, 10, 25, 23, 59, 59, 500);
    const over = await request(app).get('/x').set('X-API-Key', KEYS.free).expect(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.headers['ratelimit']).toBe('"day";r=0;t=1');
    clock.now = Date.UTC(2026, 10, 26, 0, 0, 0);
    const next = await request(app).get('/x').set('X-API-Key', KEYS.free).expect(200);
    expect(next.headers['ratelimit']).toBe('"day";r=1;t=86400');
    // A client without limits gets no headers when rate_limit has no common limit.
    const plain = await request(app).get('/x').set('X-API-Key', KEYS.plain).expect(200);
    expect(plain.headers['ratelimit']).toBeUndefined();
    await auth.close();
  });

  it('a month is the UTC calendar month', () => {
    expect(periodOf(Date.UTC(2026, 1, 28, 23), 'month')).toEqual({
      id: '2026-02',
      end: Date.UTC(2026, 2, 1),
      seconds: 28 * 86400,
    });
    expect(periodOf(Date.UTC(2026, 11, 31, 23, 59), 'day')).toEqual({
      id: '2026-12-31',
      end: Date.UTC(2027, 0, 1),
      seconds: 86400,
    });
  });
});
