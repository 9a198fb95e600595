import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { captureLogLines, createCaptureLogger, expectedContext } from '@authlayer/testkit';
import type { Express } from 'express';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { capturedServiceLog, expectCleanLog } from './service-log.js';

// API keys for many clients over real HTTP (fetch against a listening server on port 0).
const NOW = Date.parse('2026-11-22T12:00:00Z');
const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const KEYS = {
  billing: 'Billing_key-0001_aaaaaaaaaaaa',
  billingNext: 'Billing_key-0002_bbbbbbbbbbbb',
  reports: 'Reports_key-0003_cccccccccccc',
  ops: 'Ops_key-0004_dddddddddddddddddd',
};
const ENV = {
  BILLING_API_KEY: KEYS.billing,
  BILLING_API_KEY_NEXT: KEYS.billingNext,
  REPORTS_API_KEY: KEYS.reports,
  OPS_API_KEY_SHA256: sha256(KEYS.ops),
};
const ROLES = [
  { name: 'user', permissions: ['invoke'] },
  { name: 'admin', permissions: ['invoke', 'admin'] },
  { name: 'analyst', permissions: ['reports:read'] },
];
const CLIENTS = [
  { name: 'billing', env_var: 'BILLING_API_KEY', roles: ['user'], tenant_id: 'acme' },
  { name: 'billing', env_var: 'BILLING_API_KEY_NEXT' },
  { name: 'reports', env_var: 'REPORTS_API_KEY', roles: ['analyst'], tenant_id: 'globex' },
  { name: 'ops', hash_env: 'OPS_API_KEY_SHA256', roles: ['admin'] },
];
const logger = createCaptureLogger();
// Every line of the service's own pino logger (requests and audit lines), across every app here.
const logLines = captureLogLines();
const servers: Server[] = [];

/** Starts the reference service for some keys on a free port and gives its /invoke caller. */
async function serve(keys: object[], apiKeys: object = {}, now = NOW) {
  const config = { auth: { mode: 'api_key', api_keys: { ...apiKeys, keys } }, roles: ROLES };
  const log = capturedServiceLog(config, logLines).log;
  const app: Express = await createApp(config, { env: ENV, logger, now: () => now, log });
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/invoke`;
  return async (headers: Record<string, string>) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: '{"query":"q"}',
    });
    const text = await res.text();
    seen.push(text, JSON.stringify([...res.headers]));
    return {
      status: res.status,
      body: JSON.parse(text) as Record<string, unknown>,
      challenge: res.headers.get('www-authenticate'),
    };
  };
}
const seen: string[] = [];

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('three clients over real HTTP', () => {
  let invoke: Awaited<ReturnType<typeof serve>>;
  let strict: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    invoke = await serve(CLIENTS);
    strict = await serve(CLIENTS, { allow_bearer: false });
  });

  it.each([
    ['billing', KEYS.billing, { userId: 'billing', roles: ['user'], permissions: ['invoke'], tenantId: 'acme' }],
    [
      'billing, its second key',
      KEYS.billingNext,
      { userId: 'billing', roles: ['user'], permissions: ['invoke'], tenantId: 'acme' },
    ],
    [
      'reports',
      KEYS.reports,
      { userId: 'reports', roles: ['analyst'], permissions: ['reports:read'], tenantId: 'globex' },
    ],
    [
      'ops (hash_env: only its SHA-256 is configured)',
      KEYS.ops,
      { userId: 'ops', roles: ['admin'], permissions: ['invoke', 'admin'], tenantId: null },
    ],
  ])('%s gets its own identity in the header and as Bearer', async (_name, key, fields) => {
    const auth = expectedContext({ method: 'api_key', ...fields });
    expect(await invoke({ 'X-API-Key': key })).toMatchObject({ status: 200, body: { query: 'q', auth } });
    expect(await invoke({ Authorization: `Bearer ${key}` })).toMatchObject({ status: 200, body: { query: 'q', auth } });
  });

  it('with allow_bearer false, takes the header only: the key as Bearer is refused as not valid', async () => {
    expect(await strict({ 'X-API-Key': KEYS.reports })).toMatchObject({
      status: 200,
      body: { auth: { userId: 'reports' } },
    });
    expect(await strict({ Authorization: `Bearer ${KEYS.reports}` })).toEqual({
      status: 401,
      body: { error: 'unauthorized', message: 'the credentials are not valid' },
      challenge: 'ApiKey realm="authlayer", header="X-API-Key"',
    });
  });

  it('refuses the digest of a hash_env client presented as its key', async () => {
    expect((await invoke({ 'X-API-Key': sha256(KEYS.ops) })).status).toBe(401);
  });
});

describe('rotation and expiry over real HTTP', () => {
  it('accepts the old and the new key, then refuses the old one once it is removed from the config', async () => {
    const both = await serve([
      { name: 'billing', env_var: 'BILLING_API_KEY', roles: ['user'] },
      { name: 'billing', env_var: 'BILLING_API_KEY_NEXT' },
    ]);
    expect((await both({ 'X-API-Key': KEYS.billing })).body).toMatchObject({
      auth: { userId: 'billing', permissions: ['invoke'] },
    });
    expect((await both({ 'X-API-Key': KEYS.billingNext })).body).toMatchObject({
      auth: { userId: 'billing', permissions: ['invoke'] },
    });
    const rotated = await serve([{ name: 'billing', env_var: 'BILLING_API_KEY_NEXT', roles: ['user'] }]);
    expect((await rotated({ 'X-API-Key': KEYS.billingNext })).status).toBe(200);
    expect(await rotated({ 'X-API-Key': KEYS.billing })).toMatchObject({
      status: 401,
      body: { error: 'unauthorized', message: 'the credentials are not valid' },
    });
  });

  it.each([
    { when: 'yesterday', expires: NOW - DAY, status: 401 },
    { when: 'today', expires: NOW, status: 401 },
    { when: 'tomorrow', expires: NOW + DAY, status: 200 },
  ])('a key that expires $when answers $status (pinned clock)', async ({ expires, status }) => {
    const invoke = await serve([
      { name: 'billing', env_var: 'BILLING_API_KEY', expires: dayOf(expires) },
      { name: 'billing', env_var: 'BILLING_API_KEY_NEXT' },
    ]);
    const res = await invoke({ Authorization: `Bearer ${KEYS.billing}` });
    expect(res.status).toBe(status);
    if (status === 401) {
      expect(res).toEqual({
        status: 401,
        body: { error: 'unauthorized', message: 'the credentials have expired' },
        challenge:
          'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", error="invalid_token", error_description="the credentials have expired"',
      });
    }
    expect((await invoke({ 'X-API-Key': KEYS.billingNext })).status).toBe(200);
  });
});

describe('no response and no log line holds a key or a digest', () => {
  it('over every request of this file', () => {
    const text = [...seen, ...logger.text].join('\n');
    expect(seen.length).toBeGreaterThan(20);
    for (const key of Object.values(KEYS)) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(sha256(key));
    }
    expectCleanLog(logLines, [...Object.values(KEYS), ...Object.values(KEYS).map(sha256)]);
    // Audit lines name the client, never its key.
    const audited = new Set(
      logLines
        .records()
        .filter((line) => line.msg === 'auth')
        .map((line) => line.userId),
    );
    expect(audited).toEqual(new Set(['billing', 'reports', 'ops', null]));
    // The expired keys of the expiry cases warned at start-up, by client name only.
    expect(
      logger.text.every((line) =>
        /^warn: API key "billing" \(auth\.api_keys\.keys\[0\]\) expired on \d{4}-\d\d-\d\d and is refused$/.test(line),
      ),
    ).toBe(true);
  });
});
