import { describe, expect, it } from '@jest/globals';
import { loadConfig, parseAuthConfig, parseYaml } from '@authlayer/core';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeysOf, apiKeyVariable, configSchema, section } from '../src/config/api-keys-section.js';
import { configErrorOf, issuesOf, settingsOf } from './settings-of.js';

// `auth.api_keys`: its fields, defaults and error lines, checked by this package (core keeps the
// section as written). Every line below is the one core gave before the section moved here.

// The spec's defaults, written out here (not imported) so that a wrong default fails a test.
const DEFAULT_API_KEYS = {
  envVar: 'SERVICE_API_KEY',
  prefix: null,
  header: 'X-API-Key',
  allowBearer: true,
  enabled: true,
  rotationDays: 30,
  keyFile: null,
  keys: null,
  keysFile: null,
  format: 'any',
  keyPrefixes: null,
};

const apiKeys = (fields: unknown) => ({ auth: { mode: 'api_key', api_keys: fields } });
const BOOL = 'must be a boolean (true or false)';

describe('auth.api_keys: defaults', () => {
  it('fills every default when the section is not written, as deps.section and as the config', () => {
    expect(settingsOf({ auth: { mode: 'api_key' } })).toEqual(DEFAULT_API_KEYS);
    expect(settingsOf({ auth: {} })).toEqual(DEFAULT_API_KEYS);
    expect(configSchema['~standard'].validate(undefined)).toEqual({ value: DEFAULT_API_KEYS });
    expect(section).toBe('api_keys');
  });

  it("accepts the spec's minimal config (mode api_key with api_keys.env_var)", () => {
    expect(settingsOf(apiKeys({ env_var: 'MY_KEY' }))).toEqual({ ...DEFAULT_API_KEYS, envVar: 'MY_KEY' });
  });

  it('converts every snake_case field once to camelCase, also beside another mode', () => {
    const raw = {
      auth: {
        mode: 'jwt',
        api_keys: {
          env_var: 'K',
          prefix: 'prod',
          header: 'X-Key',
          allow_bearer: false,
          enabled: false,
          rotation_days: 7,
        },
        jwt: { public_key_env: 'JWT_PEM' },
      },
    };
    expect(settingsOf(raw)).toEqual({
      ...DEFAULT_API_KEYS,
      envVar: 'K',
      prefix: 'prod',
      header: 'X-Key',
      allowBearer: false,
      enabled: false,
      rotationDays: 7,
    });
  });

  it('takes deps.section, as the engine checked it, over the config', () => {
    const checked = { ...DEFAULT_API_KEYS, header: 'X-From-Engine' };
    expect(apiKeysOf(parseAuthConfig(apiKeys({ header: 'X-Written' })), { section: checked })).toBe(checked);
  });

  it('names the variable of the single key: env_var, or <PREFIX>_API_KEY', () => {
    expect(apiKeyVariable(settingsOf(apiKeys({ env_var: 'MY_KEY' })))).toBe('MY_KEY');
    expect(apiKeyVariable(settingsOf(apiKeys({ prefix: 'prod' })))).toBe('PROD_API_KEY');
  });
});

describe('auth.api_keys: accepted boundaries', () => {
  it.each([
    ['a one-character header', { header: 'k' }, 'k'],
    ['a 64-character header', { header: 'H'.repeat(64) }, 'H'.repeat(64)],
    ['a header with every token character', { header: "X!#$%&'*+.^_`|~09az-" }, "X!#$%&'*+.^_`|~09az-"],
  ])('accepts %s', (_name, fields, header) => {
    expect(settingsOf(apiKeys(fields)).header).toBe(header);
  });

  it.each([
    ['env_var with an underscore first', { env_var: '_KEY_1' }, 'envVar', '_KEY_1'],
    ['lower-case env_var', { env_var: 'my_key' }, 'envVar', 'my_key'],
    ['a prefix with digits and _', { prefix: 'eu_west1' }, 'prefix', 'eu_west1'],
    ['prefix null', { prefix: null }, 'prefix', null],
  ] as const)('accepts %s', (_name, fields, key, value) => {
    expect(settingsOf(apiKeys(fields))[key]).toBe(value);
  });
});

interface RefusedCase {
  name: string;
  fields: unknown;
  path: string;
  message: string;
}

const refused: RefusedCase[] = [
  // header
  { name: 'empty header', fields: { header: '' }, path: 'auth.api_keys.header', message: 'must not be empty' },
  {
    name: '65-character header',
    fields: { header: 'H'.repeat(65) },
    path: 'auth.api_keys.header',
    message: 'must be at most 64 characters',
  },
  ...['X API', 'X-Key:', 'X"Key', 'X\\Key', 'X-Ключ', 'X\nKey', '(X)'].map((header) => ({
    name: `header ${JSON.stringify(header)}`,
    fields: { header },
    path: 'auth.api_keys.header',
    message: 'must be a valid HTTP header name',
  })),
  ...['Authorization', 'authorization', 'AUTHORIZATION'].map((header) => ({
    name: `header ${header}`,
    fields: { header },
    path: 'auth.api_keys.header',
    message: 'must not be Authorization (use allow_bearer)',
  })),
  // unknown fields, with the likely one
  {
    name: 'unknown api_keys field',
    fields: { envvar: 'K' },
    path: 'auth.api_keys.envvar',
    message: 'unknown field (did you mean env_var?)',
  },
  {
    name: 'camelCase field',
    fields: { allowBearer: false },
    path: 'auth.api_keys.allowBearer',
    message: 'unknown field (did you mean allow_bearer?)',
  },
  {
    name: 'a misspelt allow_bearer',
    fields: { allow_barer: true },
    path: 'auth.api_keys.allow_barer',
    message: 'unknown field (did you mean allow_bearer?)',
  },
  {
    name: 'a misspelt header',
    fields: { hedaer: 'X' },
    path: 'auth.api_keys.hedaer',
    message: 'unknown field (did you mean header?)',
  },
  // wrong types
  {
    name: 'string for a bool',
    fields: { enabled: 'true' },
    path: 'auth.api_keys.enabled',
    message: `${BOOL}, not a string`,
  },
  {
    name: 'number for a bool',
    fields: { allow_bearer: 1 },
    path: 'auth.api_keys.allow_bearer',
    message: `${BOOL}, not a number`,
  },
  {
    name: 'null for a bool',
    fields: { allow_bearer: null },
    path: 'auth.api_keys.allow_bearer',
    message: `${BOOL}, not null`,
  },
  {
    name: 'number for a string',
    fields: { env_var: 5 },
    path: 'auth.api_keys.env_var',
    message: 'must be a string, not a number',
  },
  { name: 'list for the section', fields: [], path: 'auth.api_keys', message: 'must be a mapping, not a list' },
  { name: 'null for the section', fields: null, path: 'auth.api_keys', message: 'must be a mapping, not null' },
  {
    name: 'null header',
    fields: { header: null },
    path: 'auth.api_keys.header',
    message: 'must be a string, not null',
  },
  {
    name: 'null env_var',
    fields: { env_var: null },
    path: 'auth.api_keys.env_var',
    message: 'must be a string, not null',
  },
  {
    name: 'fractional rotation_days',
    fields: { rotation_days: 0.5 },
    path: 'auth.api_keys.rotation_days',
    message: 'must be an integer, not a fraction',
  },
  {
    name: 'rotation_days 0',
    fields: { rotation_days: 0 },
    path: 'auth.api_keys.rotation_days',
    message: 'must be at least 1',
  },
  // names
  ...['1KEY', 'MY-KEY', 'MY KEY', '', 'KEY$'].map((name) => ({
    name: `env_var ${JSON.stringify(name)}`,
    fields: { env_var: name },
    path: 'auth.api_keys.env_var',
    message: 'must be an environment variable name (letters, digits, _)',
  })),
  ...['_prod', '1prod', 'prod-eu', '', 'prod.eu', 'préprod'].map((prefix) => ({
    name: `prefix ${JSON.stringify(prefix)}`,
    fields: { prefix },
    path: 'auth.api_keys.prefix',
    message: 'must be a letter, then letters, digits and _ (it names the variable <PREFIX>_API_KEY)',
  })),
  // names from the file are bounded, and a huge one is not repeated
  ...['env_var', 'prefix'].map((field) => ({
    name: `a huge ${field}`,
    fields: { [field]: 'A'.repeat(1_000_000) },
    path: `auth.api_keys.${field}`,
    message: 'must be at most 128 characters',
  })),
];

describe('auth.api_keys: refused, each naming the field path and never a value', () => {
  it.each(refused)('$name → $path', ({ fields, path, message }) => {
    const error = configErrorOf(apiKeys(fields));
    expect(error.issues).toEqual([{ path, message }]);
    expect(error.path).toBe(path);
    expect(error.message).toBe(`${path}: ${message}`);
  });

  it('reports several issues at once, in order, on one line', () => {
    const error = configErrorOf(apiKeys({ header: '', enabled: 1, extra: true }));
    expect(error.issues).toEqual([
      { path: 'auth.api_keys.header', message: 'must not be empty' },
      { path: 'auth.api_keys.enabled', message: `${BOOL}, not a number` },
      { path: 'auth.api_keys.extra', message: 'unknown field' },
    ]);
    expect(error.message).toBe(error.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '));
    expect(error.message).not.toContain('\n');
  });

  it('never echoes a refused value in the message', () => {
    const secret = 'sekrit-value-123';
    const error = configErrorOf(apiKeys({ header: `${secret} `, env_var: `${secret}-`, enabled: secret }));
    expect(error.issues).toHaveLength(3);
    expect(error.message).not.toContain(secret);
  });

  it('cuts a huge unknown field name in the message', () => {
    const huge = 'A'.repeat(1_000_000);
    expect(configErrorOf(apiKeys({ [huge]: 1 })).message).toBe(`auth.api_keys.${'A'.repeat(64)}...: unknown field`);
  });

  it('reads enabled: off from YAML as the string "off", and refuses it (YAML 1.2, not 1.1)', () => {
    expect(configErrorOf(parseYaml('auth:\n  api_keys:\n    enabled: off\n')).message).toBe(
      'auth.api_keys.enabled: must be a boolean (true or false), not a string',
    );
  });
});

describe('auth.api_keys: configSchema, as the engine loader takes it', () => {
  /** What the engine's loader writes for an issue of `auth.api_keys` (load-mode.ts `sectionPath`). */
  const linesOf = (value: unknown) => {
    const result = configSchema['~standard'].validate(value);
    if (result.issues === undefined) throw new Error('the section was accepted');
    return result.issues.map(({ path, message }) => ({
      path: path.reduce<string>(
        (out, part) => (typeof part === 'number' ? `${out}[${part}]` : `${out}.${String(part)}`),
        'auth.api_keys',
      ),
      message,
    }));
  };

  // Each written as parseAuthConfig gave it while core checked the section: the same line for the
  // same mistake, now from this package (the loader's path and apiKeysOf's alike).
  it.each<[unknown, { path: string; message: string }[]]>([
    [{ allow_bearer: 'yes' }, [{ path: 'auth.api_keys.allow_bearer', message: `${BOOL}, not a string` }]],
    [
      { header: '', colour: 'blue', rotation_days: 0 },
      [
        { path: 'auth.api_keys.header', message: 'must not be empty' },
        { path: 'auth.api_keys.rotation_days', message: 'must be at least 1' },
        { path: 'auth.api_keys.colour', message: 'unknown field' },
      ],
    ],
    [
      { alow_bearer: true, keys: [{ name: 'a', env_var: 'A', expires: '2027-02-30' }] },
      [
        { path: 'auth.api_keys.keys[0].expires', message: 'must be a date written YYYY-MM-DD' },
        { path: 'auth.api_keys.alow_bearer', message: 'unknown field (did you mean allow_bearer?)' },
      ],
    ],
    [{ keys: [] }, [{ path: 'auth.api_keys.keys', message: 'must list at least one key' }]],
  ])('gives %j the lines core gave', (value, lines) => {
    expect(linesOf(value)).toEqual(lines);
    expect(issuesOf(apiKeys(value))).toEqual(lines);
  });
});

describe('auth.api_keys in a config file', () => {
  it('reads the section from YAML as core kept it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'authlayer-section-'));
    try {
      const path = join(dir, 'service.yaml');
      writeFileSync(
        path,
        'auth:\n  mode: api_key\n  api_keys:\n    env_var: MY_SERVICE_KEY\n    header: X-Service-Key\n    allow_bearer: false\n',
      );
      expect(apiKeysOf(await loadConfig(path), {})).toEqual({
        ...DEFAULT_API_KEYS,
        envVar: 'MY_SERVICE_KEY',
        header: 'X-Service-Key',
        allowBearer: false,
      });
      writeFileSync(path, 'auth:\n  mode: api_key\n  api_keys:\n    header: ""\n');
      const loaded = await loadConfig(path);
      expect(() => apiKeysOf(loaded, {})).toThrow('auth.api_keys.header: must not be empty');
      expect(configErrorOf(parseYaml('auth:\n  api_keys:\n    header: ""\n')).issues).toEqual([
        { path: 'auth.api_keys.header', message: 'must not be empty' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
