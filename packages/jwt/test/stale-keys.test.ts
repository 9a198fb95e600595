import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { bearer, createClock, failure, forgetStartUpLines, jwtConfig, NOW, validClaims } from './fixtures.js';

// Defaults: the key set is fetched again after 600 s; a failed fetch is retried after 30 s.
const MAX_AGE = 600;
const COOLDOWN = 30;
let key: SigningKey;
const servers: JwksServer[] = [];
beforeAll(async () => {
  key = await createSigningKey('ES256');
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function setUp(jwt: Record<string, unknown>) {
  const idp = await startJwksServer([key.publicJwk]);
  servers.push(idp);
  const clock = createClock();
  const logger = createCaptureLogger();
  const config = jwtConfig({ issuer: idp.issuer, discovery: true, algorithms: ['ES256'], ...jwt });
  const handler = await createJwtHandler(config, { env: {}, logger, now: clock.now, jwks: { timeoutMs: 2000 } });
  forgetStartUpLines(logger);
  // Tokens valid for the whole test; each request a new one, so that each asks the key set.
  let serial = 0;
  const mint = () =>
    mintToken(key, validClaims({ iss: idp.issuer, exp: NOW + 7 * 86_400, jti: String((serial += 1)) }));
  const token = await mint();
  const ask = async () => handler.authenticate(bearer(await mint()));
  return { idp, clock, logger, handler, ask, token };
}

describe('stale_keys_seconds: the last good key set during an outage', () => {
  it('serves until age + stale_keys_seconds with one warning per failed refresh, then key_unavailable, and recovers', async () => {
    const { idp, clock, logger, handler, ask, token } = await setUp({ stale_keys_seconds: 120 });
    expect(handler.readiness?.()).toEqual({ ready: false, keys: 'not_fetched' });
    await expect(ask()).resolves.toMatchObject({ userId: 'user-1' });
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'fresh' });
    await idp.stop();
    clock.advance(MAX_AGE); // due: the refresh fails, the last good set serves
    await expect(ask()).resolves.toMatchObject({ userId: 'user-1' });
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'stale' });
    clock.advance(COOLDOWN - 1); // within the cool-down: no new attempt
    await expect(ask()).resolves.toMatchObject({ userId: 'user-1' });
    clock.advance(1); // a second failed refresh, a second warning
    await expect(ask()).resolves.toMatchObject({ userId: 'user-1' });
    clock.advance(120 - COOLDOWN - 1); // age + stale - 1 s: a third failed refresh, still served
    await expect(ask()).resolves.toMatchObject({ userId: 'user-1' });
    clock.advance(1); // age + stale: refused
    await expect(ask()).rejects.toMatchObject(failure('key_unavailable'));
    expect(handler.readiness?.()).toEqual({ ready: false, keys: 'unavailable' });
    const until = new Date((NOW + MAX_AGE + 120) * 1000).toISOString();
    const stale = `auth.jwt.discovery: the key set cannot be read (unreachable); the last good key set serves until ${until}`;
    // Failed refreshes at 600, 630 and 719 s; at 720 s the cool-down allows none, the set is past its life.
    expect(logger.text).toEqual([`warn: ${stale}`, `warn: ${stale}`, `warn: ${stale}`]);
    await idp.start();
    clock.advance(COOLDOWN);
    await expect(ask()).resolves.toMatchObject({ userId: 'user-1' });
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'fresh' });
    expect(logger.text.at(-1)).toBe('info: auth.jwt.discovery: the key set can be read again');
    expect(idp.paths.filter((path) => path === '/jwks')).toHaveLength(2);
    expect(JSON.stringify(logger.lines)).not.toContain(token.slice(-20));
  });

  it('never serves a cached token past age + stale_keys_seconds', async () => {
    const { idp, clock, handler, token } = await setUp({ stale_keys_seconds: 60 });
    for (let i = 0; i < 3; i += 1) await handler.authenticate(bearer(token)); // verified twice: cached
    await idp.stop();
    clock.advance(MAX_AGE);
    await expect(handler.authenticate(bearer(token))).resolves.toMatchObject({ userId: 'user-1' });
    clock.advance(59);
    await expect(handler.authenticate(bearer(token))).resolves.toMatchObject({ userId: 'user-1' });
    clock.advance(1);
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('key_unavailable'));
  });

  it('stale_keys_seconds: 0, no request between: a token cached before the outage is not served past the age', async () => {
    // The 2026-11-24 probe: cached at F+500 s, served at F+601, F+650 and F+799 s (the cache asked
    // the state of the last refresh attempt, and none had been made).
    const { idp, clock, handler, token } = await setUp({ stale_keys_seconds: 0 });
    await handler.authenticate(bearer(token)); // fetched at F
    await idp.stop();
    clock.advance(500);
    await handler.authenticate(bearer(token)); // from the cache
    clock.advance(MAX_AGE - 500 - 1);
    await expect(handler.authenticate(bearer(token))).resolves.toMatchObject({ userId: 'user-1' });
    clock.advance(1);
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('key_unavailable'));
    clock.advance(199);
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('key_unavailable'));
  });

  it('with stale_keys_seconds: 0, refuses as soon as the refresh fails', async () => {
    const { idp, clock, ask } = await setUp({ stale_keys_seconds: 0 });
    await ask();
    await idp.stop();
    clock.advance(MAX_AGE);
    await expect(ask()).rejects.toMatchObject(failure('key_unavailable'));
  });

  it('costs the provider one attempt per cool-down, however many requests arrive during the outage', async () => {
    const { idp, clock, ask } = await setUp({ stale_keys_seconds: 0 });
    await ask();
    idp.setMode('fail');
    clock.advance(MAX_AGE);
    const results = await Promise.allSettled(Array.from({ length: 500 }, ask));
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
    clock.advance(COOLDOWN);
    await Promise.allSettled(Array.from({ length: 500 }, ask));
    // One discovery + key set at the start, then one discovery request per cool-down.
    expect(idp.paths).toEqual([
      '/.well-known/openid-configuration',
      '/jwks',
      '/.well-known/openid-configuration',
      '/.well-known/openid-configuration',
    ]);
  });

  it('readiness() alone fetches a due key set in the background, once', async () => {
    const { idp, handler } = await setUp({});
    expect(handler.readiness?.()).toEqual({ ready: false, keys: 'not_fetched' });
    expect(handler.readiness?.()).toEqual({ ready: false, keys: 'not_fetched' });
    // The probe started the fetch; this request joins it instead of starting another.
    await expect(
      handler.authenticate(bearer(await mintToken(key, validClaims({ iss: idp.issuer })))),
    ).resolves.toMatchObject({ userId: 'user-1' });
    expect(handler.readiness?.()).toEqual({ ready: true, keys: 'fresh' });
    expect(idp.hits).toBe(2);
  });
});
