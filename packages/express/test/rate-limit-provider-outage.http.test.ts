import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startIntrospectionServer,
  startJwksServer,
  type IntrospectionServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

// Issue: key_unavailable (JWKS down) and an introspection endpoint answering 500 counted as failed
// guesses: a client with a valid token got 401 ×5 then 429, still 429 after the provider was back.
const LIMIT = 3;
const rate_limit = { failed_auth_per_minute: LIMIT };

let jwks: JwksServer;
let key: SigningKey;
let introspection: IntrospectionServer;
beforeAll(async () => {
  key = await createSigningKey('RS256');
  jwks = await startJwksServer([key.publicJwk]);
  introspection = await startIntrospectionServer();
});
afterAll(async () => {
  await jwks.close();
  await introspection.close();
});

async function appWith(auth: object, env: object = {}, now?: () => number) {
  const middleware = await createAuthMiddleware(
    { auth, rate_limit },
    { env: { ...env }, logger: createCaptureLogger(), ...(now === undefined ? {} : { now }) },
  );
  return express().post('/invoke', middleware, (_req, res) => res.json({ ok: true }));
}

describe('a provider outage is not a failed guess (failed_auth_per_minute)', () => {
  it('jwt: key set down → 401 key_unavailable every time, never 429; 200 once it is back', async () => {
    let clock = Date.now();
    const app = await appWith({ mode: 'jwt', jwt: { jwks_url: jwks.url } }, {}, () => clock);
    const token = await mintToken(key, { sub: 'alice', exp: Math.floor(clock / 1000) + 3600 });
    jwks.setMode('fail');
    for (let i = 0; i < 3 * LIMIT; i++) {
      const refused = await request(app).post('/invoke').set('Authorization', `Bearer ${token}`).expect(401);
      expect(refused.headers['www-authenticate']).toContain('no key is available');
    }
    jwks.setMode('ok');
    clock += 31_000; // past the key set's cool-down after a failed fetch
    await request(app).post('/invoke').set('Authorization', `Bearer ${token}`).expect(200);
  });

  it('oauth2: introspection endpoint answering 500 → 401 every time, never 429; 200 once it is back', async () => {
    const token = introspection.issueToken({ sub: 'alice' });
    const app = await appWith(
      { mode: 'oauth2', oauth2: { introspection_url: introspection.url, client_id: introspection.clientId } },
      { OAUTH2_CLIENT_SECRET: introspection.clientSecret },
    );
    introspection.setMode('fail');
    for (let i = 0; i < 3 * LIMIT; i++) {
      await request(app).post('/invoke').set('Authorization', `Bearer ${token}`).expect(401);
    }
    introspection.setMode('ok');
    await request(app).post('/invoke').set('Authorization', `Bearer ${token}`).expect(200);
  });

  it('refused client credentials still count: a forged token past the limit is 429', async () => {
    const other = await createSigningKey('RS256');
    const app = await appWith({ mode: 'jwt', jwt: { jwks_url: jwks.url } });
    const forged = await mintToken(other, { sub: 'mallory', exp: Math.floor(Date.now() / 1000) + 60 });
    for (let i = 0; i < LIMIT; i++)
      await request(app).post('/invoke').set('Authorization', `Bearer ${forged}`).expect(401);
    await request(app).post('/invoke').set('Authorization', `Bearer ${forged}`).expect(429);
  });
});
