import { afterAll, afterEach, describe, expect, it, jest } from '@jest/globals';
import { createCaptureLogger, createSigningKey, mintToken } from '@authlayer/testkit';
import express from 'express';
import { once } from 'node:events';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createAuthMiddleware, errorHandler, type AuthDecision } from '../src/index.js';
import { countingMode } from './support/counting-mode.js';

const KEY = 'k3y-for-the-rate-limit-tests';
const env = { SERVICE_API_KEY: KEY };

async function limitedApp(rateLimit: object) {
  const decisions: AuthDecision[] = [];
  const { counter, importModule } = countingMode();
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key' }, rate_limit: rateLimit },
    { env, logger: createCaptureLogger(), importModule, onDecision: (d) => decisions.push(d) },
  );
  const app = express();
  app.post('/invoke', auth, (_req, res) => res.json({ ok: true }));
  app.use(errorHandler());
  return { app, auth, decisions, counter };
}

const servers: Server[] = [];
afterAll(() => servers.forEach((s) => s.close()));
afterEach(() => {
  jest.restoreAllMocks();
});

/** A raw request from a chosen loopback address (the whole of 127/8 is local on Linux). */
async function fromAddress(app: express.Express, localAddress: string, key: string): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    localAddress,
    method: 'POST',
    path: '/invoke',
    headers: { 'X-API-Key': key },
  });
  req.end();
  const [res] = (await once(req, 'response')) as [{ statusCode: number; resume(): void }];
  res.resume();
  return res.statusCode;
}

describe('rate_limit.failed_auth_per_minute (per client address, before any verification)', () => {
  it('answers 429 with Retry-After past the limit, even to a correct key, without verifying it', async () => {
    const { app, counter, decisions } = await limitedApp({ failed_auth_per_minute: 3 });
    for (let i = 0; i < 3; i++) await request(app).post('/invoke').set('X-API-Key', `wrong-${i}`).expect(401);
    const refused = await request(app).post('/invoke').set('X-API-Key', KEY).expect(429);
    expect(refused.body).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(counter.verifications).toBe(3);
    expect(decisions.map((d) => [d.outcome, d.reason])).toEqual([
      ...Array(3).fill(['refused', 'credentials_invalid']),
      ['rate_limited', 'too_many_failures'],
    ]);
  });

  it('lets the correct key through again once the window has ended', async () => {
    const { app } = await limitedApp({ failed_auth_per_minute: 2 });
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
    for (let i = 0; i < 2; i++) await request(app).post('/invoke').set('X-API-Key', 'wrong').expect(401);
    clock.mockReturnValue(start + 59_999);
    await request(app).post('/invoke').set('X-API-Key', KEY).expect(429);
    clock.mockReturnValue(start + 60_001);
    await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
  });

  it('does not count requests without credentials', async () => {
    const { app } = await limitedApp({ failed_auth_per_minute: 1 });
    for (let i = 0; i < 3; i++) await request(app).post('/invoke').expect(401);
    await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
  });

  it('trust_proxy true: the address is the entry the proxy appended, so another client is unaffected', async () => {
    const { app } = await limitedApp({ failed_auth_per_minute: 1, trust_proxy: true });
    await request(app).post('/invoke').set('X-Forwarded-For', '203.0.113.7').set('X-API-Key', 'wrong').expect(401);
    await request(app).post('/invoke').set('X-Forwarded-For', '203.0.113.7').set('X-API-Key', KEY).expect(429);
    await request(app).post('/invoke').set('X-Forwarded-For', '198.51.100.9').set('X-API-Key', KEY).expect(200);
  });

  it('trust_proxy true behind an appending proxy: forged entries neither lock a victim out nor dodge the limit', async () => {
    const { app, counter } = await limitedApp({ failed_auth_per_minute: 3, trust_proxy: true });
    const victim = '198.51.100.7';
    const attacker = '203.0.113.66';
    // The attacker claims the victim's address; the proxy appends the attacker's real one.
    for (let i = 0; i < 5; i++) {
      await request(app)
        .post('/invoke')
        .set('X-Forwarded-For', `${victim}, ${i}.${i}.${i}.${i}, ${attacker}`)
        .set('X-API-Key', 'wrong');
    }
    expect(counter.verifications).toBe(3);
    await request(app).post('/invoke').set('X-Forwarded-For', `${attacker}:4444`).set('X-API-Key', KEY).expect(429);
    await request(app).post('/invoke').set('X-Forwarded-For', victim).set('X-API-Key', KEY).expect(200);
  });

  it('trust_proxy false: X-Forwarded-For is ignored; the socket address counts', async () => {
    const { app } = await limitedApp({ failed_auth_per_minute: 1 });
    await request(app).post('/invoke').set('X-Forwarded-For', '203.0.113.7').set('X-API-Key', 'wrong').expect(401);
    await request(app).post('/invoke').set('X-Forwarded-For', '198.51.100.9').set('X-API-Key', KEY).expect(429);
    expect(await fromAddress(app, '127.0.0.1', KEY)).toBe(429);
    expect(await fromAddress(app, '127.0.0.2', KEY)).toBe(200);
  });
});

describe('rate_limit.requests_per_minute (per identity, on protected routes)', () => {
  it('lets exactly N requests of one identity through, then 429 with Retry-After', async () => {
    const { app, decisions } = await limitedApp({ requests_per_minute: 2 });
    await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    await request(app).post('/invoke').set('Authorization', `Bearer ${KEY}`).expect(200);
    const over = await request(app).post('/invoke').set('X-API-Key', KEY).send({ big: 'body' }).expect(429);
    expect(over.body.error).toBe('rate_limited');
    expect(over.headers['retry-after']).toMatch(/^(59|60)$/);
    expect(over.headers.connection).toBe('close');
    expect(decisions.at(-1)).toMatchObject({
      outcome: 'rate_limited',
      reason: 'too_many_requests',
      userId: 'SERVICE_API_KEY',
    });
  });

  it('is off when the section is absent, and close() is harmless', async () => {
    const auth = await createAuthMiddleware({ auth: { mode: 'api_key' } }, { env, logger: createCaptureLogger() });
    const app = express().post('/invoke', auth, (_req, res) => res.json({}));
    for (let i = 0; i < 5; i++) await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    await auth.close();
  });
});

describe('requests_per_minute with several issuers (jwt providers)', () => {
  it("counts issuer B's alice apart from issuer A's alice: B's requests never limit A's", async () => {
    const [a, b] = await Promise.all([createSigningKey('HS256'), createSigningKey('HS256')]);
    const providers = [
      { issuer: 'https://a.example.com', public_key_env: 'A_KEY' },
      { issuer: 'https://b.example.com', public_key_env: 'B_KEY' },
    ];
    const auth = await createAuthMiddleware(
      { auth: { mode: 'jwt', jwt: { algorithms: ['HS256'], providers } }, rate_limit: { requests_per_minute: 2 } },
      { env: { A_KEY: a.envValue, B_KEY: b.envValue }, logger: createCaptureLogger() },
    );
    const app = express().post('/invoke', auth, (req, res) => res.json(req.auth));
    const exp = Math.floor(Date.now() / 1000) + 600;
    const aliceOfB = await mintToken(b, { iss: providers[1]!.issuer, sub: 'alice', exp });
    const aliceOfA = await mintToken(a, { iss: providers[0]!.issuer, sub: 'alice', exp });
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await request(app).post('/invoke').auth(aliceOfB, { type: 'bearer' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const res = await request(app).post('/invoke').auth(aliceOfA, { type: 'bearer' }).expect(200);
    expect(res.body).toMatchObject({ userId: 'alice', issuer: 'https://a.example.com' });
  });
});
