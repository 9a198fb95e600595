import { describe, expect, it } from '@jest/globals';
import { issuesOf, settingsOf } from './settings-of.js';

// `auth.api_keys.keys` (contract: "API keys for many clients").
const withKeys = (keys: unknown, apiKeys: Record<string, unknown> = {}) => ({
  auth: { mode: 'api_key', api_keys: { ...apiKeys, keys } },
  roles: [{ name: 'user', permissions: ['invoke'] }],
});

const ENTRY_DEFAULTS = {
  envVar: null,
  hashEnv: null,
  keyFile: null,
  hashFile: null,
  roles: [],
  tenantId: null,
  expires: null,
  created: null,
  requestsPerMinute: null,
  quota: null,
};

describe('auth.api_keys.keys: accepted', () => {
  it('converts each entry once to camelCase, every optional field filled', () => {
    const config = settingsOf(
      withKeys([
        {
          name: 'billing',
          env_var: 'BILLING_API_KEY',
          roles: ['user'],
          tenant_id: 'acme',
          expires: '2027-01-31',
          created: '2026-11-01',
        },
        { name: 'reports', hash_env: 'REPORTS_API_KEY_SHA256' },
      ]),
    );
    expect(config.keys).toEqual([
      {
        ...ENTRY_DEFAULTS,
        name: 'billing',
        envVar: 'BILLING_API_KEY',
        roles: ['user'],
        tenantId: 'acme',
        expires: '2027-01-31',
        created: '2026-11-01',
      },
      { ...ENTRY_DEFAULTS, name: 'reports', hashEnv: 'REPORTS_API_KEY_SHA256' },
    ]);
  });

  it("gives every entry of one name the roles and tenant that any one of them says (the contract's rotation example)", () => {
    const config = settingsOf(
      withKeys([
        { name: 'billing', env_var: 'OLD', roles: ['user', 'user'], tenant_id: 'acme', expires: '2027-01-31' },
        { name: 'billing', env_var: 'NEXT' },
        { name: 'billing', env_var: 'THIRD', roles: ['user'], tenant_id: null },
      ]),
    );
    const shared = { roles: ['user'], tenantId: 'acme' };
    expect(config.keys).toEqual([
      { ...ENTRY_DEFAULTS, ...shared, name: 'billing', envVar: 'OLD', expires: '2027-01-31' },
      { ...ENTRY_DEFAULTS, ...shared, name: 'billing', envVar: 'NEXT' },
      { ...ENTRY_DEFAULTS, ...shared, name: 'billing', envVar: 'THIRD' },
    ]);
  });

  it("leaves keys null without it (the spec's single key), and keeps the env_var default", () => {
    const config = settingsOf({ auth: { mode: 'api_key' } });
    expect(config.keys).toBeNull();
    expect(config.envVar).toBe('SERVICE_API_KEY');
  });

  it.each(['2028-02-29', '2026-12-31', '2000-01-01'])('accepts the date %s', (day) => {
    expect(settingsOf(withKeys([{ name: 'a', env_var: 'A', expires: day, created: day }])).keys?.[0]?.expires).toBe(
      day,
    );
  });

  it('accepts prefix: null beside keys (null is the default, not a prefix)', () => {
    expect(settingsOf(withKeys([{ name: 'a', env_var: 'A' }], { prefix: null })).keys).toHaveLength(1);
  });
});

const entry = (fields: Record<string, unknown>) => [{ name: 'a', env_var: 'A', ...fields }];

describe('auth.api_keys.keys: refused, each naming the field path and never a value', () => {
  it.each<[string, unknown, string, string]>([
    [
      'keys beside env_var',
      withKeys(entry({}), { env_var: 'SERVICE_API_KEY' }),
      'auth.api_keys.keys',
      'excludes auth.api_keys.env_var (each key names its own variable or file)',
    ],
    [
      'keys beside prefix',
      withKeys(entry({}), { prefix: 'prod' }),
      'auth.api_keys.keys',
      'excludes auth.api_keys.prefix (each key names its own variable or file)',
    ],
    [
      'an entry with env_var and hash_env',
      withKeys(entry({ hash_env: 'A_SHA' })),
      'auth.api_keys.keys[0]',
      'needs exactly one of env_var, hash_env, key_file and hash_file',
    ],
    [
      'an entry with neither',
      withKeys([{ name: 'a' }]),
      'auth.api_keys.keys[0]',
      'needs exactly one of env_var, hash_env, key_file and hash_file',
    ],
    ['an empty list', withKeys([]), 'auth.api_keys.keys', 'must list at least one key'],
    // One rule for every variable name: as auth.api_keys.env_var refuses it.
    [
      'an env_var of 200 characters',
      withKeys([{ name: 'a', env_var: 'A'.repeat(200) }]),
      'auth.api_keys.keys[0].env_var',
      'must be at most 128 characters',
    ],
    [
      'a hash_env of 200 characters',
      withKeys([{ name: 'a', hash_env: 'A'.repeat(200) }]),
      'auth.api_keys.keys[0].hash_env',
      'must be at most 128 characters',
    ],
    ['keys as a mapping', withKeys({ a: 'A' }), 'auth.api_keys.keys', 'must be a list, not a mapping'],
    ['an entry without a name', withKeys([{ env_var: 'A' }]), 'auth.api_keys.keys[0].name', 'is required'],
    ['an empty name', withKeys(entry({ name: '' })), 'auth.api_keys.keys[0].name', 'must not be empty'],
    [
      'a name with a newline',
      withKeys(entry({ name: 'a\nb' })),
      'auth.api_keys.keys[0].name',
      'must not hold control characters',
    ],
    [
      'a name over 128 characters',
      withKeys(entry({ name: 'n'.repeat(129) })),
      'auth.api_keys.keys[0].name',
      'must be at most 128 characters',
    ],
    [
      'an env_var that is no variable name',
      withKeys(entry({ env_var: 'MY-KEY' })),
      'auth.api_keys.keys[0].env_var',
      'must be an environment variable name (letters, digits, _)',
    ],
    [
      'a hash_env that is no variable name',
      withKeys([{ name: 'a', hash_env: '1X' }]),
      'auth.api_keys.keys[0].hash_env',
      'must be an environment variable name (letters, digits, _)',
    ],
    [
      'roles as a string',
      withKeys(entry({ roles: 'user' })),
      'auth.api_keys.keys[0].roles',
      'must be a list, not a string',
    ],
    ['an empty role', withKeys(entry({ roles: [''] })), 'auth.api_keys.keys[0].roles[0]', 'must not be empty'],
    ['an empty tenant_id', withKeys(entry({ tenant_id: '' })), 'auth.api_keys.keys[0].tenant_id', 'must not be empty'],
    [
      'expires not a date',
      withKeys(entry({ expires: 'soon' })),
      'auth.api_keys.keys[0].expires',
      'must be a date written YYYY-MM-DD',
    ],
    [
      'expires on 2027-02-29',
      withKeys(entry({ expires: '2027-02-29' })),
      'auth.api_keys.keys[0].expires',
      'must be a date written YYYY-MM-DD',
    ],
    [
      'expires with a time',
      withKeys(entry({ expires: '2027-01-31T00:00:00Z' })),
      'auth.api_keys.keys[0].expires',
      'must be a date written YYYY-MM-DD',
    ],
    [
      'created as a number',
      withKeys(entry({ created: 20261122 })),
      'auth.api_keys.keys[0].created',
      'must be a string, not a number',
    ],
    [
      'an unknown entry field',
      withKeys(entry({ key: 'the-key-itself' })),
      'auth.api_keys.keys[0].key',
      'unknown field',
    ],
    [
      'two entries of one name with other roles',
      withKeys([
        { name: 'a', env_var: 'A', roles: ['user'] },
        { name: 'a', env_var: 'B', roles: ['admin'] },
      ]),
      'auth.api_keys.keys[1].roles',
      'differs from keys[0].roles (entries of one name are one client)',
    ],
    [
      'two entries of one name with other tenants',
      withKeys([
        { name: 'a', env_var: 'A', tenant_id: 'x' },
        { name: 'a', env_var: 'B', tenant_id: 'y' },
      ]),
      'auth.api_keys.keys[1].tenant_id',
      'differs from keys[0].tenant_id (entries of one name are one client)',
    ],
  ])('%s', (_name, raw, path, message) => {
    expect(issuesOf(raw)).toEqual([{ path, message }]);
  });

  it('accepts the same roles in another order for two entries of one name', () => {
    const raw = withKeys([
      { name: 'a', env_var: 'A', roles: ['x', 'y'] },
      { name: 'a', env_var: 'B', roles: ['y', 'x', 'x'] },
    ]);
    expect(settingsOf(raw).keys?.map((key) => key.roles)).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);
  });

  it('reports every broken rule at once, and no value', () => {
    const secret = 'sekrit-key-value-0042';
    const issues = issuesOf(
      withKeys(
        [
          { name: 'a', env_var: 'A', hash_env: 'B' },
          { name: secret.repeat(9), key: secret },
        ],
        { env_var: 'X', prefix: 'p' },
      ),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'auth.api_keys.keys[1].name',
      'auth.api_keys.keys[1].key',
      'auth.api_keys.keys',
      'auth.api_keys.keys[0]',
      'auth.api_keys.keys[1]',
    ]);
    expect(JSON.stringify(issues)).not.toContain(secret);
    const crossField = issuesOf(withKeys([{ name: 'a', env_var: 'A', hash_env: 'B' }], { env_var: 'X', prefix: 'p' }));
    expect(crossField).toEqual([
      {
        path: 'auth.api_keys.keys',
        message: 'excludes auth.api_keys.env_var and auth.api_keys.prefix (each key names its own variable or file)',
      },
      { path: 'auth.api_keys.keys[0]', message: 'needs exactly one of env_var, hash_env, key_file and hash_file' },
    ]);
  });
});
