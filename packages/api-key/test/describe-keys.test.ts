import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createApiKeyHandler } from '../src/api-key-handler.js';
import { isRotationDue } from '../src/describe-keys.js';

// created + rotation_days → a start-up warning (name only) and a line in --check; describe().
const NOW = Date.parse('2026-11-22T10:00:00Z');
const ENV = { A_KEY: 'a-key-value-0001', B_KEY: 'b-key-value-0002', C_SHA: 'c'.repeat(64) };
const ROLES = [{ name: 'user', permissions: ['invoke'] }];

async function setUp(apiKeys: object, roles = ROLES) {
  const logger = createCaptureLogger();
  const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: apiKeys }, roles });
  const handler = await createApiKeyHandler(config, { env: ENV, logger, now: () => NOW });
  return { handler, logger };
}

describe('start-up warnings about keys', () => {
  it('warns, naming the client and the entry only, about a key past rotation_days and an expired key', async () => {
    const { logger } = await setUp({
      rotation_days: 30,
      keys: [
        { name: 'billing', env_var: 'A_KEY', created: '2026-10-22' }, // 31 days 10 h: due
        { name: 'billing', env_var: 'B_KEY', created: '2026-10-24' }, // 29 days 10 h: not yet
        { name: 'ops', hash_env: 'C_SHA', expires: '2026-11-22', created: '2020-01-01' },
      ],
    });
    expect(logger.text).toEqual([
      'warn: API key "billing" (auth.api_keys.keys[0]) was created on 2026-10-22, more than rotation_days (30) ago: rotate it',
      'warn: API key "ops" (auth.api_keys.keys[2]) expired on 2026-11-22 and is refused',
    ]);
  });

  it('never refuses a key for its age', async () => {
    const { handler } = await setUp({
      rotation_days: 1,
      keys: [{ name: 'old', env_var: 'A_KEY', created: '2001-01-01' }],
    });
    await expect(handler.authenticate({ headers: { 'x-api-key': ENV.A_KEY } })).resolves.toMatchObject({
      userId: 'old',
    });
  });

  it('says nothing for keys without created, or created in the future', async () => {
    const { logger } = await setUp({
      keys: [
        { name: 'a', env_var: 'A_KEY' },
        { name: 'b', env_var: 'B_KEY', created: '2027-01-01' },
      ],
    });
    expect(logger.text).toEqual([]);
  });

  it('counts age from 00:00 UTC of created: due only past rotation_days full days', () => {
    const created = Date.parse('2026-11-01T00:00:00Z');
    expect(isRotationDue({ created: '2026-11-01' }, 1, created + 86_400_000)).toBe(false);
    expect(isRotationDue({ created: '2026-11-01' }, 1, created + 86_400_001)).toBe(true);
    expect(isRotationDue({ created: null }, 1, created * 2)).toBe(false);
  });
});

describe('describe(): what --check shows', () => {
  it('lists clients, their keys by variable, expiry and age, and the warnings; never a value', async () => {
    const { handler } = await setUp({
      rotation_days: 30,
      keys: [
        {
          name: 'billing',
          env_var: 'A_KEY',
          roles: ['user'],
          tenant_id: 'acme',
          expires: '2027-01-31',
          created: '2026-01-01',
        },
        { name: 'billing', env_var: 'B_KEY', created: '2026-11-20' },
        { name: 'ops', hash_env: 'C_SHA', expires: '2026-11-01' },
      ],
    });
    const description = handler.describe!();
    expect(description).toEqual({
      key_material: { A_KEY: 'set', B_KEY: 'set', C_SHA: 'set' },
      clients: [
        {
          name: 'billing',
          roles: ['user'],
          permissions: ['invoke'],
          tenant_id: 'acme',
          keys: [
            {
              entry: 'auth.api_keys.keys[0]',
              env_var: 'A_KEY',
              expires: '2027-01-31',
              expired: false,
              created: '2026-01-01',
              rotation_due: true,
            },
            {
              entry: 'auth.api_keys.keys[1]',
              env_var: 'B_KEY',
              expires: null,
              expired: false,
              created: '2026-11-20',
              rotation_due: false,
            },
          ],
        },
        {
          name: 'ops',
          roles: [],
          permissions: [],
          tenant_id: null,
          keys: [
            {
              entry: 'auth.api_keys.keys[2]',
              hash_env: 'C_SHA',
              expires: '2026-11-01',
              expired: true,
              created: null,
              rotation_due: false,
            },
          ],
        },
      ],
      warnings: [
        'API key "billing" (auth.api_keys.keys[0]) was created on 2026-01-01, more than rotation_days (30) ago: rotate it',
        'API key "ops" (auth.api_keys.keys[2]) expired on 2026-11-01 and is refused',
      ],
    });
    const text = JSON.stringify(description);
    for (const value of Object.values(ENV)) expect(text).not.toContain(value);
  });

  it("describes the spec's single key as one client named after its variable", async () => {
    const logger = createCaptureLogger();
    const handler = await createApiKeyHandler(parseAuthConfig({ auth: { api_keys: { prefix: 'prod' } } }), {
      env: { PROD_API_KEY: ENV.A_KEY },
      logger,
    });
    expect(handler.describe!()).toEqual({
      key_material: { PROD_API_KEY: 'set' },
      clients: [
        {
          name: 'PROD_API_KEY',
          roles: [],
          permissions: [],
          tenant_id: null,
          keys: [
            {
              entry: 'auth.api_keys.prefix',
              env_var: 'PROD_API_KEY',
              expires: null,
              expired: false,
              created: null,
              rotation_due: false,
            },
          ],
        },
      ],
      warnings: [],
    });
  });
});
