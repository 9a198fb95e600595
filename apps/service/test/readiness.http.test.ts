import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.js';

// GET /readyz and the keys of /healthz through a provider outage, with a pinned clock.
// The provider is testkit's loopback JWKS server with its OpenID discovery document.
const NOW = 1_800_000_000;
const MAX_AGE = 600; // the key set's default age, seconds
const COOLDOWN = 30; // no new attempt this long after a failed one
const STALE = 120;
let key: SigningKey;
let idp: JwksServer;
let app: Express;
let ms = NOW * 1000;
const advance = (seconds: number) => void (ms += seconds * 1000);
const logger = createCaptureLogger();
let serial = 0;

beforeAll(async () => {
  key = await createSigningKey('RS256');
  idp = await startJwksServer([key.publicJwk]);
  await idp.stop(); // unreachable from the start
  const config = { auth: { mode: 'jwt', jwt: { issuer: idp.issuer, discovery: true, stale_keys_seconds: STALE } } };
  app = await createApp(config, { env: {}, logger, now: () => ms });
});
afterAll(() => idp.close());

/** POST /invoke with a new token each time, so that each request needs the key set. */
async function invoke(): Promise<request.Response> {
  const token = await mintToken(key, {
    iss: idp.issuer,
    sub: 'u-1',
    jti: String((serial += 1)),
    iat: NOW,
    exp: NOW + 86_400,
  });
  return request(app).post('/invoke').set('Authorization', `Bearer ${token}`).send({ query: 'q' });
}
const health = async () => (await request(app).get('/healthz').expect(200)).body as { keys?: { state: string } };

describe('an unreachable provider at start-up, then an outage', () => {
  it('is not ready before the first fetch, and ready once the provider is up, with no restart', async () => {
    expect((await request(app).get('/readyz').expect(503)).body).toEqual({
      status: 'not_ready',
      keys: { state: 'not_fetched' },
    });
    const refused = await invoke();
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="invalid_token", error_description="no key is available to verify the token"',
    );
    expect((await request(app).get('/readyz').expect(503)).body).toEqual({
      status: 'not_ready',
      keys: { state: 'unavailable' },
    });
    expect(await health()).toEqual({
      status: 'ok',
      auth: { mode: 'jwt', handler: 'jwt' },
      config: { generation: 1, loaded_at: expect.any(String), last_reload_error: null },
      keys: { state: 'unavailable' },
    });
    await idp.start();
    advance(COOLDOWN);
    expect((await invoke()).status).toBe(200);
    expect((await request(app).get('/readyz').expect(200)).body).toEqual({ status: 'ready' });
    expect((await health()).keys).toEqual({ state: 'fresh' });
    expect(idp.paths).toEqual(['/.well-known/openid-configuration', '/jwks']);
  });

  it('keeps passing until age + stale_keys_seconds when the provider stops, then 401 key_unavailable, and recovers', async () => {
    const before = idp.hits;
    await idp.stop();
    advance(MAX_AGE);
    expect((await invoke()).status).toBe(200);
    expect((await health()).keys).toEqual({ state: 'stale' });
    expect((await request(app).get('/readyz').expect(200)).body).toEqual({ status: 'ready' });
    advance(STALE - 1);
    expect((await invoke()).status).toBe(200);
    advance(1);
    expect((await invoke()).status).toBe(401);
    expect((await health()).keys).toEqual({ state: 'unavailable' });
    expect((await request(app).get('/readyz').expect(503)).body).toEqual({
      status: 'not_ready',
      keys: { state: 'unavailable' },
    });
    await idp.start();
    advance(COOLDOWN);
    expect((await invoke()).status).toBe(200);
    expect((await health()).keys).toEqual({ state: 'fresh' });
    // Two failed refreshes reached nothing (connection refused); then one discovery and one key set.
    expect(idp.hits - before).toBe(2);
    // One warning per failed refresh: at start-up (the first probe's), at 600 s and at 719 s.
    const warnings = logger.text.filter((line) => line.startsWith('warn: auth.jwt.discovery'));
    expect(warnings).toHaveLength(3);
    expect(
      logger.text.filter((line) => line === 'info: auth.jwt.discovery: the key set can be read again'),
    ).toHaveLength(2);
  });
});
