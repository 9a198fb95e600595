import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig, type AuthHandler, type AuthRequest } from '@authlayer/core';
import { createCaptureLogger, expectedContext } from '@authlayer/testkit';
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { createApiKeyHandler } from '../src/api-key-handler.js';

// `auth.api_keys.keys`: named clients, rotation, hash_env, expires (contract: "API keys for many clients").
const NOW = Date.parse('2026-11-22T15:30:00Z');
const KEYS = {
  BILLING: 'billing-key-0001-aaaa',
  BILLING_NEXT: 'billing-key-0002-bbbb',
  REPORTS: 'reports-key-0003-cccc',
  OPS: 'ops-key-0004-dddd',
};
const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const ENV = {
  BILLING_API_KEY: KEYS.BILLING,
  BILLING_API_KEY_NEXT: KEYS.BILLING_NEXT,
  REPORTS_API_KEY: KEYS.REPORTS,
  OPS_API_KEY_SHA256: sha256(KEYS.OPS),
};
const ROLES = [
  { name: 'user', permissions: ['invoke'] },
  { name: 'admin', permissions: ['invoke', 'admin'] },
  { name: 'reader', permissions: ['reports:read'] },
];

async function setUp(keys: object[], options: { env?: Record<string, string>; now?: number; apiKeys?: object } = {}) {
  const logger = createCaptureLogger();
  const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: { ...options.apiKeys, keys } }, roles: ROLES });
  const handler = await createApiKeyHandler(config, { env: options.env ?? ENV, logger, now: () => options.now ?? NOW });
  return { handler, logger };
}

const THREE = [
  { name: 'billing', env_var: 'BILLING_API_KEY', roles: ['user'], tenant_id: 'acme' },
  { name: 'billing', env_var: 'BILLING_API_KEY_NEXT' },
  { name: 'reports', env_var: 'REPORTS_API_KEY', roles: ['reader', 'user'] },
  { name: 'ops', hash_env: 'OPS_API_KEY_SHA256', roles: ['admin'], tenant_id: 'internal' },
];

const withKey = (key: string): AuthRequest => ({ headers: { 'x-api-key': key } });
const refusal = (handler: AuthHandler, request: AuthRequest) =>
  handler.authenticate(request).then(
    () => 'accepted',
    (error: unknown) => error,
  );

describe('many keys: each client its own identity', () => {
  it.each([
    [
      'billing (first key)',
      KEYS.BILLING,
      { userId: 'billing', roles: ['user'], permissions: ['invoke'], tenantId: 'acme' },
    ],
    [
      'billing (second live key)',
      KEYS.BILLING_NEXT,
      { userId: 'billing', roles: ['user'], permissions: ['invoke'], tenantId: 'acme' },
    ],
    [
      'reports',
      KEYS.REPORTS,
      { userId: 'reports', roles: ['reader', 'user'], permissions: ['reports:read', 'invoke'], tenantId: null },
    ],
    [
      'ops (hash_env)',
      KEYS.OPS,
      { userId: 'ops', roles: ['admin'], permissions: ['invoke', 'admin'], tenantId: 'internal' },
    ],
  ])('%s', async (_name, key, fields) => {
    const { handler, logger } = await setUp(THREE);
    await expect(handler.authenticate(withKey(key))).resolves.toEqual(
      expectedContext({ method: 'api_key', ...fields }),
    );
    await expect(handler.authenticate({ headers: { authorization: `Bearer ${key}` } })).resolves.toMatchObject({
      userId: fields.userId,
    });
    expect(logger.text).toEqual([]);
  });

  it('gives one frozen context per client, whichever of its keys matched', async () => {
    const { handler } = await setUp(THREE);
    const first = await handler.authenticate(withKey(KEYS.BILLING));
    expect(await handler.authenticate(withKey(KEYS.BILLING_NEXT))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it.each([
    ['a key of no client', 'unknown-key-0000-zzzz'],
    ['the SHA-256 a hash_env holds, presented as a key', sha256(KEYS.OPS)],
    ['the name of a client', 'billing'],
    ['the name of a variable', 'BILLING_API_KEY'],
    ['one key glued to another', `${KEYS.BILLING}${KEYS.REPORTS}`],
  ])('refuses %s', async (_name, key) => {
    const { handler } = await setUp(THREE);
    expect(await refusal(handler, withKey(key))).toMatchObject({
      name: 'AuthError',
      status: 401,
      reason: 'credentials_invalid',
    });
  });

  it('needs only the digest of a hash_env client: its key is nowhere in the environment', async () => {
    const { handler } = await setUp([{ name: 'ops', hash_env: 'OPS_API_KEY_SHA256' }], {
      env: { OPS_API_KEY_SHA256: sha256(KEYS.OPS).toUpperCase() },
    });
    await expect(handler.authenticate(withKey(KEYS.OPS))).resolves.toMatchObject({ userId: 'ops' });
  });

  it('keeps the rules of the header and Bearer: allow_bearer false refuses the Bearer form', async () => {
    const { handler } = await setUp(THREE, { apiKeys: { allow_bearer: false } });
    expect(await refusal(handler, { headers: { authorization: `Bearer ${KEYS.REPORTS}` } })).toMatchObject({
      reason: 'credentials_invalid',
      challenge: 'ApiKey realm="authlayer", header="X-API-Key"',
    });
    await expect(handler.authenticate(withKey(KEYS.REPORTS))).resolves.toMatchObject({ userId: 'reports' });
  });
});

describe('many keys: expires, with a pinned clock', () => {
  const DAY = 86_400_000;
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  it.each([
    ['yesterday', NOW - DAY, 'refused'],
    ['today', NOW, 'refused'],
    ['tomorrow', NOW + DAY, 'accepted'],
  ])('a key that expires %s is %s', async (_name, expires, outcome) => {
    const { handler } = await setUp([{ name: 'billing', env_var: 'BILLING_API_KEY', expires: dayOf(expires) }]);
    const result = await refusal(handler, withKey(KEYS.BILLING));
    if (outcome === 'accepted') expect(result).toBe('accepted');
    else {
      expect(result).toMatchObject({
        name: 'AuthError',
        code: 'unauthorized',
        status: 401,
        reason: 'credentials_expired',
        message: 'the credentials have expired',
        challenge:
          'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", error="invalid_token", error_description="the credentials have expired"',
      });
    }
  });

  it('refuses from 00:00 UTC of the day on, not a millisecond before', async () => {
    const midnight = Date.parse('2026-12-01T00:00:00Z');
    let now = midnight - 1;
    const config = parseAuthConfig({
      auth: { api_keys: { keys: [{ name: 'b', env_var: 'BILLING_API_KEY', expires: '2026-12-01' }] } },
    });
    const handler = await createApiKeyHandler(config, { env: ENV, logger: createCaptureLogger(), now: () => now });
    await expect(handler.authenticate(withKey(KEYS.BILLING))).resolves.toMatchObject({ userId: 'b' });
    now = midnight;
    await expect(handler.authenticate(withKey(KEYS.BILLING))).rejects.toMatchObject({ reason: 'credentials_expired' });
  });

  it("says when the presented key ends (credentialExpiry): its own key's day, or null", async () => {
    const { handler } = await setUp([
      { name: 'billing', env_var: 'BILLING_API_KEY', expires: '2027-03-01' },
      { name: 'billing', env_var: 'BILLING_API_KEY_NEXT' },
    ]);
    const context = await handler.authenticate(withKey(KEYS.BILLING));
    const end = Date.parse('2027-03-01T00:00:00Z');
    expect(handler.credentialExpiry?.(context, withKey(KEYS.BILLING))).toEqual({
      expiresAt: end / 1000,
      refusedFrom: end,
      reason: 'credentials_expired',
    });
    expect(handler.credentialExpiry?.(context, withKey(KEYS.BILLING_NEXT))).toBeNull();
    expect(handler.credentialExpiry?.(context, { headers: {} })).toBeNull();
    expect(handler.credentialExpiry?.(context, withKey('not-a-key'))).toBeNull();
  });

  it('lets the other live key of the client in when one has expired (rotation)', async () => {
    const { handler } = await setUp([
      { name: 'billing', env_var: 'BILLING_API_KEY', expires: dayOf(NOW - DAY) },
      { name: 'billing', env_var: 'BILLING_API_KEY_NEXT' },
    ]);
    await expect(handler.authenticate(withKey(KEYS.BILLING))).rejects.toMatchObject({ reason: 'credentials_expired' });
    await expect(handler.authenticate(withKey(KEYS.BILLING_NEXT))).resolves.toMatchObject({ userId: 'billing' });
  });

  it('uses Date.now when no clock is given', async () => {
    const config = parseAuthConfig({
      auth: {
        api_keys: {
          keys: [
            { name: 'b', env_var: 'BILLING_API_KEY', expires: '2000-01-01' },
            { name: 'c', env_var: 'REPORTS_API_KEY', expires: '9999-12-31' },
          ],
        },
      },
    });
    const handler = await createApiKeyHandler(config, { env: ENV, logger: createCaptureLogger() });
    await expect(handler.authenticate(withKey(KEYS.BILLING))).rejects.toMatchObject({ reason: 'credentials_expired' });
    await expect(handler.authenticate(withKey(KEYS.REPORTS))).resolves.toMatchObject({ userId: 'c' });
  });
});

describe('many keys: nothing holds a key or a digest', () => {
  it('not the handler, its description, nor any error', async () => {
    const { handler, logger } = await setUp(THREE);
    const errors = await Promise.all([
      refusal(handler, withKey('wrong-key-value')),
      refusal(handler, { headers: {} }),
      refusal(handler, withKey(`${KEYS.OPS}x`)),
    ]);
    const seen = [
      JSON.stringify(handler),
      inspect(handler, { showHidden: true, depth: null, getters: true }),
      JSON.stringify(handler.describe?.()),
      ...errors.map((error) => `${inspect(error)} ${JSON.stringify(error)}`),
      ...logger.text,
    ].join('\n');
    for (const key of Object.values(KEYS)) {
      expect(seen).not.toContain(key);
      expect(seen).not.toContain(sha256(key));
    }
  });
});
