// The JSON Schema that @authlayer/core ships (generated from configSchema at build time, with the
// mode packages' sections) agrees with the config check (parseAuthConfig, then each mode package's
// own section schema, as the engine's loader checks it), and the example configs point editors at it.
import { describe, expect, it } from '@jest/globals';
import { isKnownAuthMode, parseAuthConfig, parseYaml, DEFAULTS } from '@authlayer/core';
import * as apiKey from '@authlayer/api-key';
import * as jwt from '@authlayer/jwt';
import * as oauth2 from '@authlayer/oauth2';
import { Ajv } from 'ajv';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { REPO_ROOT } from '../scripts/pack.mjs';

const require = createRequire(import.meta.url);
const SCHEMA_PATH = join(REPO_ROOT, 'packages', 'core', 'dist', 'config.schema.json');
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
// Formats (jwks_url's uri) are an editor's concern; ajv would need ajv-formats for them.
// A claim's values may be strings, numbers or booleans: a union type, which draft-07 allows.
const validate = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true, validateFormats: false }).compile(
  schema,
);

const SERVICE_DIR = join(REPO_ROOT, 'apps', 'service');
const EXAMPLES = [
  join(SERVICE_DIR, 'service.yaml'),
  ...readdirSync(join(SERVICE_DIR, 'examples')).map((file) => join(SERVICE_DIR, 'examples', file)),
];

/** The mode packages this test knows, by the section each checks. */
const SECTIONS = new Map<string, { '~standard': { validate(value: unknown): { issues?: unknown } } }>([
  [apiKey.section, apiKey.configSchema],
  [jwt.section, jwt.configSchema],
  [oauth2.section, oauth2.configSchema],
]);

const parses = (raw: unknown) => {
  try {
    const { modeSections = {}, modes } = parseAuthConfig(raw);
    const external = modes.some((mode) => !isKnownAuthMode(mode));
    // Each package checks its section when absent too (as the loader does for a listed mode).
    const checked = Object.keys({ ...Object.fromEntries(SECTIONS), ...modeSections }).map((key) =>
      SECTIONS.get(key)?.['~standard'].validate(modeSections[key]),
    );
    // Beside a mode package outside this repository, a section no package here knows is its own:
    // the editor takes any mapping there, and that package checks it at start-up. Otherwise the
    // engine's loader refuses it as an unknown field.
    return checked.every((result) => (result === undefined ? external : result.issues === undefined));
  } catch {
    return false;
  }
};

describe('@authlayer/core/config.schema.json', () => {
  it('is what the package exports under ./config.schema.json', () => {
    expect(require.resolve('@authlayer/core/config.schema.json')).toBe(SCHEMA_PATH);
  });

  it('is a draft-07 schema carrying the defaults of the one config schema', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    const apiKeys = (schema as any).properties.auth.properties.api_keys.properties;
    expect(apiKeys.header).toMatchObject({ default: 'X-API-Key', maxLength: DEFAULTS.headerMaxLength });
    const checked = jwt.configSchema['~standard'].validate(undefined);
    expect(checked.issues).toBeUndefined();
    expect((schema as any).properties.auth.properties.jwt.properties.leeway_seconds).toMatchObject({
      default: (checked as { value: jwt.JwtConfig }).value.leewaySeconds,
      minimum: 0,
      maximum: DEFAULTS.leewayMaxSeconds,
    });
  });

  it.each(EXAMPLES.map((path) => ({ path, name: path.slice(REPO_ROOT.length + 1) })))(
    'accepts $name, as parseAuthConfig does',
    ({ path }) => {
      const raw = parseYaml(readFileSync(path, 'utf8'), path);
      expect(validate.errors ?? []).toEqual([]);
      expect(validate(raw)).toBe(true);
      expect(parses(raw)).toBe(true);
    },
  );

  it.each(EXAMPLES.map((path) => ({ path, name: path.slice(REPO_ROOT.length + 1) })))(
    '$name points yaml-language-server at the schema',
    ({ path }) => {
      const [first] = readFileSync(path, 'utf8').split('\n');
      const match = /^# yaml-language-server: \$schema=(\S+)$/.exec(first ?? '');
      expect(match).not.toBeNull();
      expect(resolve(dirname(path), match![1]!)).toBe(SCHEMA_PATH);
    },
  );

  const cases: { name: string; raw: unknown; valid: boolean }[] = [
    {
      name: 'the minimal API key config',
      raw: { auth: { mode: 'api_key', api_keys: { env_var: 'MY_KEY' } } },
      valid: true,
    },
    {
      name: 'a JWT config with claims',
      raw: {
        auth: { mode: 'jwt', jwt: { public_key_env: 'PEM', algorithms: ['ES256'], claims: { tenant_id: 'org.id' } } },
      },
      valid: true,
    },
    { name: 'a header over 64 characters', raw: { auth: { api_keys: { header: 'x'.repeat(65) } } }, valid: false },
    { name: 'an empty header', raw: { auth: { api_keys: { header: '' } } }, valid: false },
    { name: 'an unknown field', raw: { auth: { mode: 'api_key', colour: 'blue' } }, valid: false },
    // A mode package's name is any lower-case name (`saml` loads @authlayer/saml); one that is no
    // package name is refused by both. A near miss of a known mode (`jwr`) only at start-up.
    { name: 'a mode package outside the repository', raw: { auth: { mode: 'saml' } }, valid: true },
    // Its section is the package's to check (at start-up); the editor takes any mapping there.
    {
      name: 'a mode package outside the repository, with its section',
      raw: { auth: { mode: 'hmac', hmac: { secret_env: 'HMAC_SECRET' } } },
      valid: true,
    },
    { name: 'an unknown mode', raw: { auth: { mode: 'SAML 2' } }, valid: false },
    {
      name: 'oauth2 mode with its settings',
      raw: {
        auth: {
          mode: 'oauth2',
          oauth2: { introspection_url: 'https://idp.example/i', client_id: 'api', auth_method: 'client_secret_post' },
        },
      },
      valid: true,
    },
    {
      name: 'an unknown oauth2 auth_method',
      raw: { auth: { oauth2: { auth_method: 'private_key_jwt' } } },
      valid: false,
    },
    { name: 'oauth2 cache_seconds over 3600', raw: { auth: { oauth2: { cache_seconds: 3601 } } }, valid: false },
    { name: 'leeway_seconds over 300', raw: { auth: { jwt: { leeway_seconds: 301 } } }, valid: false },
    { name: 'an algorithm not in the spec', raw: { auth: { jwt: { algorithms: ['none'] } } }, valid: false },
    { name: 'allow_bearer as a string', raw: { auth: { api_keys: { allow_bearer: 'yes' } } }, valid: false },
    { name: 'a role without a name', raw: { auth: {}, roles: [{ permissions: ['x'] }] }, valid: false },
    { name: 'no auth section', raw: { roles: [] }, valid: false },
    {
      name: 'API keys for many clients',
      raw: { auth: { api_keys: { keys: [{ name: 'a', hash_env: 'A_SHA', roles: ['r'], expires: '2027-01-31' }] } } },
      valid: true,
    },
    {
      name: 'a key entry with an unknown field',
      raw: { auth: { api_keys: { keys: [{ name: 'a', env_var: 'A', key: 'x' }] } } },
      valid: false,
    },
    {
      name: 'a key entry expiring on no date',
      raw: { auth: { api_keys: { keys: [{ name: 'a', env_var: 'A', expires: '2027-02-30' }] } } },
      valid: false,
    },
    { name: 'an empty keys list', raw: { auth: { api_keys: { keys: [] } } }, valid: false },
    { name: 'several modes', raw: { auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'PEM' } } }, valid: true },
    { name: 'an empty list of modes', raw: { auth: { mode: [] } }, valid: false },
    { name: 'an unknown mode in a list', raw: { auth: { mode: ['api_key', 'OAuth 9'] } }, valid: false },
    { name: 'fallback refuse', raw: { auth: { fallback: 'refuse' } }, valid: true },
    { name: 'an unknown fallback', raw: { auth: { fallback: 'open' } }, valid: false },
    {
      name: 'an access entry',
      raw: { auth: {}, access: { 'POST /invoke': { permissions: ['invoke'], scopes: ['a:b'] } } },
      valid: true,
    },
    {
      name: 'an access key that is not "METHOD /path"',
      raw: { auth: {}, access: { 'post /invoke': { roles: ['a'] } } },
      valid: false,
    },
    {
      name: 'an access name with a space',
      raw: { auth: {}, access: { 'POST /invoke': { roles: ['a b'] } } },
      valid: false,
    },
    {
      name: 'an unknown field in an access entry',
      raw: { auth: {}, access: { 'POST /invoke': { permission: ['a'] } } },
      valid: false,
    },
  ];

  it.each(cases)('decides $name as parseAuthConfig does (valid: $valid)', ({ raw, valid }) => {
    expect(validate(raw)).toBe(valid);
    expect(parses(raw)).toBe(valid);
  });

  it("docs/sender-constrained.md's complete config is apps/service/examples/sender-constrained.yaml", () => {
    const page = readFileSync(join(REPO_ROOT, 'docs', 'sender-constrained.md'), 'utf8');
    const block = /```yaml\n([\s\S]*?)```/.exec(page.slice(page.indexOf('## A complete config')))?.[1];
    expect(block).toBeDefined();
    const example = join(SERVICE_DIR, 'examples', 'sender-constrained.yaml');
    const body = (text: string) => text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(body(block!)).toEqual(body(readFileSync(example, 'utf8')));
    expect(validate(parseYaml(block!, 'sender-constrained.md'))).toBe(true);
  });

  it("docs/mcp.md's complete server config validates and parses, MCP keys and all", () => {
    const page = readFileSync(join(REPO_ROOT, 'docs', 'mcp.md'), 'utf8');
    const block = /```yaml\n([\s\S]*?)```/.exec(page.slice(page.indexOf('## A complete server')))?.[1];
    expect(block).toBeDefined();
    const raw = parseYaml(block!, 'mcp.md');
    expect(validate(raw)).toBe(true);
    expect(parseAuthConfig(raw).mcp).toEqual({
      endpoint: '/mcp',
      maxBodyBytes: 1048576,
      allowedHosts: ['mcp.example.com', 'localhost', '127.0.0.1', '[::1]'],
      allowedOrigins: ['https://mcp.example.com'],
      challengeScopes: 'required',
      batches: 'refuse',
      filterLists: false,
    });
  });

  it("docs/configuration.md's complete service config is apps/service/examples/several-modes.yaml", () => {
    const readme = readFileSync(join(REPO_ROOT, 'docs', 'configuration.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### A complete service config'));
    const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const example = join(SERVICE_DIR, 'examples', 'several-modes.yaml');
    const fromReadme = parseAuthConfig(parseYaml(block!, 'README.md'));
    expect(fromReadme).toEqual(parseAuthConfig(parseYaml(readFileSync(example, 'utf8'), example)));
    expect(validate(parseYaml(block!, 'README.md'))).toBe(true);
  });
});
