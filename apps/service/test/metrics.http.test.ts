import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey, mintToken, startJwksServer } from '@authlayer/testkit';
import request from 'supertest';
import { createApp } from '../src/app.js';

const KEY = 'metrics-test-key-91c3';
const options = { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() };

/** The value of one sample line of the Prometheus text, or 0 when absent. */
function sample(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? 0 : Number(line.slice(name.length + 1));
}

const ALLOWED = 'authlayer_auth_decisions_total{method="api_key",outcome="allowed",reason=""}';
const REFUSED = 'authlayer_auth_decisions_total{method="api_key",outcome="refused",reason="credentials_invalid"}';
const LIMITED = 'authlayer_auth_decisions_total{method="api_key",outcome="rate_limited",reason="too_many_requests"}';
const DURATIONS = 'authlayer_auth_duration_seconds_count{method="api_key",outcome="allowed"}';

describe('GET /metrics', () => {
  it('is served with metrics: true, and its counters move as requests are made', async () => {
    const app = await createApp(
      { auth: { mode: 'api_key' }, metrics: true, rate_limit: { requests_per_minute: 2 } },
      options,
    );
    const invoke = (key: string) => request(app).post('/invoke').set('X-API-Key', key).send({ query: 'q' });
    const before = await request(app).get('/metrics').expect(200);
    expect(before.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'authlayer_auth_decisions_total',
      'authlayer_auth_duration_seconds',
      'authlayer_key_fetches_total',
      'authlayer_token_cache_total',
    ]) {
      expect(before.text).toContain(`# TYPE ${name} `);
    }
    expect(sample(before.text, ALLOWED)).toBe(0);

    await invoke(KEY).expect(200);
    await invoke(KEY).expect(200);
    await invoke('wrong').expect(401);
    await invoke(KEY).expect(429);

    const after = (await request(app).get('/metrics').expect(200)).text;
    expect(sample(after, ALLOWED)).toBe(2);
    expect(sample(after, REFUSED)).toBe(1);
    expect(sample(after, LIMITED)).toBe(1);
    expect(sample(after, DURATIONS)).toBe(2);
    expect(after).toContain('process_resident_memory_bytes');
    expect(after).not.toContain(KEY);
    await app.shutdown();
  });

  it('authlayer_held_connections counts held requests; an end counts as a decision, with no duration', async () => {
    const app = await createApp({ auth: { mode: 'api_key' }, metrics: true }, options);
    const scrape = async () => (await request(app).get('/metrics').expect(200)).text;
    const held = {
      headers: { 'x-api-key': KEY },
      auth: await app.auth.handler.authenticate({ headers: { 'x-api-key': KEY } }),
    };
    const release = app.auth.hold(held as never, () => undefined);
    expect(await scrape()).toContain('# TYPE authlayer_held_connections gauge');
    expect(sample(await scrape(), 'authlayer_held_connections')).toBe(1);
    release();
    expect(sample(await scrape(), 'authlayer_held_connections')).toBe(0);
    // A reload after which its mode no longer authenticates anyone ends it.
    const ended: string[] = [];
    app.auth.hold(held as never, (reason) => ended.push(reason));
    await app.auth.reload({ auth: { mode: 'api_key', api_keys: { enabled: false } }, metrics: true });
    expect(ended).toEqual(['credentials_missing']);
    const text = await scrape();
    expect(
      sample(text, 'authlayer_auth_decisions_total{method="api_key",outcome="ended",reason="credentials_missing"}'),
    ).toBe(1);
    expect(text).not.toContain('outcome="ended"}');
    await app.shutdown();
  });

  it('is not served by default (404), and the metrics option overrides the config', async () => {
    await request(await createApp({ auth: { mode: 'api_key' } }, options))
      .get('/metrics')
      .expect(404);
    await request(await createApp({ auth: { mode: 'api_key' }, metrics: true }, { ...options, metrics: false }))
      .get('/metrics')
      .expect(404);
    await request(await createApp({ auth: { mode: 'api_key' } }, { ...options, metrics: true }))
      .get('/metrics')
      .expect(200);
  });

  it('counts key fetches and token cache lookups in JWT mode', async () => {
    const key = await createSigningKey('RS256');
    const jwks = await startJwksServer([key.publicJwk]);
    try {
      const app = await createApp({ auth: { mode: 'jwt', jwt: { jwks_url: jwks.url } }, metrics: true }, options);
      const seconds = Math.floor(Date.now() / 1000);
      const token = await mintToken(key, { sub: 'u-1', iat: seconds, exp: seconds + 300 });
      for (let i = 0; i < 3; i++) {
        await request(app).post('/invoke').set('Authorization', `Bearer ${token}`).send({ query: 'q' }).expect(200);
      }
      const text = (await request(app).get('/metrics').expect(200)).text;
      expect(sample(text, 'authlayer_key_fetches_total{result="ok"}')).toBe(1);
      // The cache admits a token on its second verification: miss, miss, hit.
      expect(sample(text, 'authlayer_token_cache_total{result="miss"}')).toBe(2);
      expect(sample(text, 'authlayer_token_cache_total{result="hit"}')).toBe(1);
      // A key set that cannot be read: a fresh app's first fetch fails.
      jwks.setMode('fail');
      const down = await createApp({ auth: { mode: 'jwt', jwt: { jwks_url: jwks.url } }, metrics: true }, options);
      await request(down).post('/invoke').set('Authorization', `Bearer ${token}`).send({ query: 'q' }).expect(401);
      const after = (await request(down).get('/metrics').expect(200)).text;
      expect(sample(after, 'authlayer_key_fetches_total{result="error"}')).toBe(1);
    } finally {
      await jwks.close();
    }
  });
});
