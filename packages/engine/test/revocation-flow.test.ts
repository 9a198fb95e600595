import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { freePort, signRaw, startRedis, type RedisServer } from '@authlayer/testkit';
import { checkRevocationEntry } from '../src/revocation/revocation-entry.js';
import { connectRevocations } from '../src/revocation/connect-revocations.js';
import type { Engine } from '../src/engine.js';
import { API_KEYS, engineAt, judge, KEYS, requestTo, T } from './support/engine-at.js';

// The revocation list as an engine enforces it, on a real redis-server: a revoked credential is
// 401 token_revoked with its own mode's challenge first, the other modes' after it; a change made
// by the admin connection (the service's --revoke) reaches the engine; a reload keeps the list.

const SECRET = 'a-secret-of-at-least-thirty-two-bytes!';
const AUTH = {
  ...API_KEYS,
  mode: ['api_key', 'jwt'],
  jwt: { public_key_env: 'JWT_SECRET', algorithms: ['HS256'], issuer: 'https://idp', audience: 'api' },
};
const ENV = { ADMIN_KEY: KEYS.admin, AUDITOR_KEY: KEYS.auditor, PLAIN_KEY: KEYS.plain, JWT_SECRET: SECRET };
const NOT_CONFIGURED = 'revocation.store is not configured: add a revocation section with a redis:// store';

/** Polls `check` until it holds (no bound of ours: the test's timeout is the bound). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

const token = (sub: string) =>
  signRaw(
    new TextEncoder().encode(SECRET),
    { alg: 'HS256', typ: 'JWT' },
    {
      sub,
      iss: 'https://idp',
      aud: 'api',
      iat: T / 1000,
      exp: T / 1000 + 600,
    },
  );

/** The refusal of a request to a route that asks for a caller, or null when it passes. */
async function refusalOf(engine: Engine, headers: Record<string, string>) {
  const { outcome } = await judge(engine.current(), requestTo('GET', '/private', headers));
  if (outcome === null || outcome.pass) return null;
  const challenge = outcome.answer.headers.find(([name]) => name === 'WWW-Authenticate')?.[1];
  return { status: outcome.answer.status, message: outcome.answer.message, challenge };
}

describe('revocation.store enforced by an engine', () => {
  let redis: RedisServer;
  let engine: Engine;
  const config = () => ({ auth: AUTH, revocation: { store: redis.url }, access: { 'GET /private': 'authenticated' } });
  beforeAll(async () => {
    redis = await startRedis();
    ({ engine } = await engineAt(config(), { env: ENV }));
  });
  afterAll(async () => {
    await engine?.close();
    await redis?.stop();
  });

  it('is ready once the list was loaded, and says so', async () => {
    await until(() => engine.readiness().revocations === 'loaded');
    expect(engine.readiness()).toMatchObject({ ready: true, revocations: 'loaded' });
  });

  it('a revoked API key: 401 token_revoked, the ApiKey challenge first, worded for a key', async () => {
    expect(await refusalOf(engine, { 'x-api-key': KEYS.admin })).toBeNull();
    const made = await engine.revoke('sub:admin', { ttlSeconds: 600 });
    expect(made).toMatchObject({ entry: 'sub:admin' });
    const refused = await refusalOf(engine, { 'x-api-key': KEYS.admin });
    expect(refused).toMatchObject({ status: 401, message: 'the key has been revoked' });
    expect(refused!.challenge).toMatch(/^ApiKey realm="authlayer"/);
    expect(refused!.challenge).toContain('error="invalid_token", error_description="the key has been revoked"');
    expect(await engine.revocations()).toEqual([expect.objectContaining({ entry: 'sub:admin' })]);
    expect(await engine.unrevoke('sub:admin')).toBe(true);
    expect(await refusalOf(engine, { 'x-api-key': KEYS.admin })).toBeNull();
  });

  it('a revoked JWT: its Bearer challenge says token_revoked, the ApiKey one follows', async () => {
    const bearer = { authorization: `Bearer ${await token('ada')}` };
    expect(await refusalOf(engine, bearer)).toBeNull();
    await engine.revoke('sub:ada', { ttlSeconds: 600 });
    const refused = await refusalOf(engine, bearer);
    expect(refused).toMatchObject({ status: 401 });
    expect(refused!.challenge).toMatch(/^Bearer realm="authlayer", error="invalid_token"/);
    expect(refused!.challenge).toContain('ApiKey realm="authlayer"');
    expect(refused!.challenge).not.toContain('the key has been revoked');
    await engine.unrevoke('sub:ada');
  });

  it('a change made by connectRevocations (the CLI) reaches the engine; a reload keeps the list', async () => {
    const admin = await connectRevocations({ store: redis.url } as never, () => T);
    try {
      await admin.revoke(checkRevocationEntry('sub:grace'), 600);
    } finally {
      admin.close();
    }
    const bearer = { authorization: `Bearer ${await token('grace')}` };
    await until(async () => (await refusalOf(engine, bearer)) !== null);
    const state = await engine.reload(config());
    expect(state.generation).toBe(2);
    expect(await refusalOf(engine, bearer)).toMatchObject({ status: 401 });
    expect(engine.readiness().revocations).toBe('loaded');
  });

  it('connectRevocations to a Redis that is not there: a clear error, without the URL', async () => {
    const url = `redis://:hunter2@127.0.0.1:${await freePort()}`;
    const failed = await connectRevocations({ store: url } as never).catch((error: unknown) => error);
    expect(failed).toEqual(new Error('revocation.store: Redis is unreachable'));
    expect(String((failed as Error).message)).not.toContain('hunter2');
  });
});

describe('an engine without revocation.store', () => {
  it('refuses revoke, unrevoke and revocations with what to configure; readiness has no list', async () => {
    const { engine } = await engineAt();
    await expect(engine.revoke('sub:admin')).rejects.toThrow(NOT_CONFIGURED);
    await expect(engine.unrevoke('sub:admin')).rejects.toThrow(NOT_CONFIGURED);
    await expect(engine.revocations()).rejects.toThrow(NOT_CONFIGURED);
    expect(engine.readiness()).toEqual({ ready: true });
    await engine.close();
  });

  it('refuses a malformed entry before any store is asked', async () => {
    const { engine } = await engineAt();
    await expect(engine.revoke('nobody')).rejects.toThrow(TypeError);
    await engine.close();
  });
});
