// Config input a hostile or careless file holds: a directive or tag that changes what the data
// means, a huge name echoed back, user info in a URL, a relative path that says nothing.
import { describe, expect, it } from '@jest/globals';
import { relative } from 'node:path';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig, parseYaml } from '../src/config/load-config-file.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

function errorOf(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseYaml reads plain YAML 1.2 data only', () => {
  it.each([
    [
      'a %YAML 1.1 directive (where off means false)',
      '%YAML 1.1\n---\nauth: {}\nmetrics: off\n',
      'line 1: a %YAML 1.1 directive is not allowed',
    ],
    ['a %TAG directive', '%TAG !e! tag:example.com,2000:\n---\nauth: {}\n', 'line 1: a %TAG directive is not allowed'],
    [
      'a %TAG directive that redefines !!',
      '%TAG !! tag:example.com,2000:\n---\nauth: {}\n',
      'line 1: a %TAG directive is not allowed',
    ],
    ['an unknown tag', 'auth:\n  mode: !custom api_key\n', 'line 2: a tag (!...) is not allowed'],
    ['a core tag', 'auth:\n  jwt:\n    issuer: !!str https://idp\n', 'line 3: a tag (!...) is not allowed'],
    ['a tag on a mapping', 'auth: !!map\n  mode: jwt\n', 'line 2: a tag (!...) is not allowed'],
  ])('refuses %s', (_name, text, says) => {
    expect(errorOf(() => parseYaml(text, 'c.yaml')).message).toBe(
      `config: c.yaml, ${says} (only plain YAML 1.2 data is read)`,
    );
  });

  it('accepts a %YAML 1.2 directive, and off stays the string "off" (so metrics: off is refused, not false)', () => {
    expect(parseYaml('%YAML 1.2\n---\na: off\n')).toEqual({ a: 'off' });
    expect(errorOf(() => parseAuthConfig(parseYaml('auth: {}\nmetrics: off\n'))).message).toBe(
      'metrics: must be a boolean (true or false), not a string',
    );
  });
});

describe('names from the file are bounded', () => {
  const huge = 'A'.repeat(1_000_000);

  // A huge public_key_env or client_secret_env: envVarName (section-fields.test.ts) and their packages.
  it('refuses a huge MCP endpoint without repeating it', () => {
    const error = errorOf(() =>
      parseAuthConfig({ auth: {}, mcp: { endpoint: `/${huge}` }, access: { 'POST /mcp': 'authenticated' } }),
    );
    expect(error.issues[0]).toEqual({ path: 'mcp.endpoint', message: 'must be at most 2048 characters' });
    expect(error.message).not.toContain(huge.slice(0, 100));
  });

  it('cuts a huge unknown field name in the message', () => {
    expect(errorOf(() => parseAuthConfig({ auth: {}, [huge]: 1 })).message).toBe(`${'A'.repeat(64)}...: unknown field`);
    expect(errorOf(() => parseAuthConfig({ auth: {}, reload: { [huge]: 1 } })).message).toBe(
      `reload.${'A'.repeat(64)}...: unknown field`,
    );
  });
});

// User info in jwks_url: keySetUrl (section-fields.test.ts) and @authlayer/jwt.
describe('loadConfig', () => {
  it('names the absolute path it tried when a relative path is missing', async () => {
    const path = relative(process.cwd(), '/nonexistent-authlayer/service.yaml');
    await expect(loadConfig(path)).rejects.toMatchObject({
      message: 'config: cannot read /nonexistent-authlayer/service.yaml (ENOENT)',
    });
  });
});

describe('an unknown field suggests the known one it is closest to', () => {
  it.each([
    // auth.jwt and auth.oauth2 fields, claims: their packages' tests and section-fields.test.ts.
    [
      { auth: {}, resource: { identifier: 'https://a', audience_stict: true } },
      'resource.audience_stict: unknown field (did you mean audience_strict?)',
    ],
    [
      { auth: {}, forward_auth: { identity_header: {} } },
      'forward_auth.identity_header: unknown field (did you mean identity_headers?)',
    ],
    [
      { auth: {}, rate_limit: { trust_proxys: 1 } },
      'rate_limit.trust_proxys: unknown field (did you mean trust_proxy?)',
    ],
    [{ auth: {}, role: [] }, 'role: unknown field (did you mean roles?)'],
    [
      { auth: {}, roles: [{ name: 'a', permision: [] }] },
      'roles[0].permision: unknown field (did you mean permissions?)',
    ],
    [{ auth: {}, colour: 'blue' }, 'colour: unknown field'],
  ])('%j', (raw, message) => {
    expect(errorOf(() => parseAuthConfig(raw)).message).toBe(message);
  });
});

describe('text from the file that errors repeat is bounded', () => {
  it('cuts a huge duplicate role name', () => {
    const name = 'r'.repeat(100_000);
    const error = errorOf(() => parseAuthConfig({ auth: {}, roles: [{ name }, { name }] }));
    expect(error.message).toBe(`roles[1].name: duplicate role "${'r'.repeat(64)}..."`);
  });
});
