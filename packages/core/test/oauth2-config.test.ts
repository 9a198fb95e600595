import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

const URL_ = 'https://sso.example.com/token/introspect';
const oauth2 = (fields: Record<string, unknown>, mode = 'oauth2') => ({ auth: { mode, oauth2: fields } });
const minimal = { introspection_url: URL_, client_id: 'invoke-api' };

function issuesOf(raw: unknown): readonly { path: string; message: string }[] {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('parseAuthConfig accepted the config');
}

describe('parseAuthConfig: auth.oauth2', () => {
  it('fills every default of the minimal oauth2 config (written out, not imported)', () => {
    expect(parseAuthConfig(oauth2(minimal)).oauth2).toEqual({
      introspectionUrl: URL_,
      discovery: false,
      issuer: null,
      audience: null,
      clientId: 'invoke-api',
      clientSecretEnv: 'OAUTH2_CLIENT_SECRET',
      clientSecretFile: null,
      authMethod: 'client_secret_basic',
      cacheSeconds: 60,
      timeoutMs: 5000,
      cacheStore: null,
      claims: {
        userId: 'sub',
        email: 'email',
        name: 'name',
        roles: 'roles',
        permissions: 'permissions',
        scopes: 'scope',
        tenantId: null,
      },
      dpop: 'off',
      dpopAlgorithms: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
      certificateBound: 'off',
    });
  });

  it('converts every field once to camelCase, claims included', () => {
    const config = parseAuthConfig(
      oauth2({
        issuer: 'https://sso.example.com',
        discovery: true,
        audience: 'invoke-api',
        client_id: 'c',
        client_secret_env: 'MY_SECRET',
        auth_method: 'client_secret_post',
        cache_seconds: 0,
        timeout_ms: 1,
        claims: { user_id: 'client_id', roles: 'realm_access.roles' },
      }),
    );
    expect(config.mode).toBe('oauth2');
    expect(config.oauth2).toMatchObject({
      introspectionUrl: null,
      discovery: true,
      issuer: 'https://sso.example.com',
      audience: 'invoke-api',
      clientSecretEnv: 'MY_SECRET',
      clientSecretFile: null,
      authMethod: 'client_secret_post',
      cacheSeconds: 0,
      timeoutMs: 1,
      claims: { userId: 'client_id', roles: 'realm_access.roles', scopes: 'scope' },
    });
    expect(Object.isFrozen(config.oauth2.claims)).toBe(true);
  });

  it.each([
    ['cache_seconds', 3600, 'cacheSeconds'],
    ['timeout_ms', 60_000, 'timeoutMs'],
  ] as const)('accepts %s at its upper bound %d', (field, value, key) => {
    expect(parseAuthConfig(oauth2({ ...minimal, [field]: value })).oauth2[key]).toBe(value);
  });

  it('keeps cache_store, a Redis URL', () => {
    expect(parseAuthConfig(oauth2({ ...minimal, cache_store: 'rediss://r:6380/1' })).oauth2.cacheStore).toBe(
      'rediss://r:6380/1',
    );
  });

  it('needs nothing of auth.oauth2 in another mode', () => {
    expect(parseAuthConfig({ auth: { mode: 'api_key' } }).oauth2.introspectionUrl).toBeNull();
  });

  it.each([
    [
      'no endpoint',
      { client_id: 'c' },
      'auth.oauth2',
      'oauth2 mode needs introspection_url, or issuer with discovery: true',
    ],
    ['no client_id', { introspection_url: URL_ }, 'auth.oauth2.client_id', 'oauth2 mode needs client_id'],
    [
      'discovery without issuer',
      { ...minimal, introspection_url: null, discovery: true },
      'auth.oauth2.issuer',
      'discovery needs issuer',
    ],
    [
      'discovery and a URL',
      { ...minimal, discovery: true, issuer: 'https://i' },
      'auth.oauth2',
      'set introspection_url or discovery, not both',
    ],
    ['cache_seconds -1', { ...minimal, cache_seconds: -1 }, 'auth.oauth2.cache_seconds', 'must be 0 to 3600'],
    [
      'cache_store not redis',
      { ...minimal, cache_store: 'memory' },
      'auth.oauth2.cache_store',
      'must be a redis:// (or rediss://) URL',
    ],
    [
      'cache_store with nothing cached',
      { ...minimal, cache_store: 'redis://r:6379/0', cache_seconds: 0 },
      'auth.oauth2.cache_store',
      'cache_store shares cached answers: it needs cache_seconds above 0',
    ],
    ['cache_seconds 3601', { ...minimal, cache_seconds: 3601 }, 'auth.oauth2.cache_seconds', 'must be 0 to 3600'],
    ['timeout_ms 0', { ...minimal, timeout_ms: 0 }, 'auth.oauth2.timeout_ms', 'must be 1 to 60000'],
    ['timeout_ms 60001', { ...minimal, timeout_ms: 60_001 }, 'auth.oauth2.timeout_ms', 'must be 1 to 60000'],
    [
      'an unknown auth_method',
      { ...minimal, auth_method: 'private_key_jwt' },
      'auth.oauth2.auth_method',
      'must be one of: client_secret_basic, client_secret_post',
    ],
    [
      'a non-http URL',
      { ...minimal, introspection_url: 'ftp://x/y' },
      'auth.oauth2.introspection_url',
      'must be an http or https URL',
    ],
    [
      'a URL with user info',
      { ...minimal, introspection_url: 'https://u:p@x/y' },
      'auth.oauth2.introspection_url',
      'must not hold a user name or password (fetch refuses such URLs)',
    ],
    [
      'a bad secret variable',
      { ...minimal, client_secret_env: 'A-B' },
      'auth.oauth2.client_secret_env',
      'must be an environment variable name (letters, digits, _)',
    ],
    ['an unknown field', { ...minimal, client_secret: 'x' }, 'auth.oauth2.client_secret', 'unknown field'],
    [
      'a bad claim path',
      { ...minimal, claims: { roles: 'a..b' } },
      'auth.oauth2.claims.roles',
      'must be a claim name or a dot path such as realm_access.roles',
    ],
  ])('refuses %s → %s', (_name, fields, path, message) => {
    expect(issuesOf(oauth2(fields))).toEqual([{ path, message }]);
  });

  it('checks discovery against its issuer in every mode', () => {
    expect(issuesOf(oauth2({ discovery: true }, 'api_key'))).toEqual([
      { path: 'auth.oauth2.issuer', message: 'discovery needs issuer' },
    ]);
  });
});

describe('parseAuthConfig: oauth2 in a list of modes', () => {
  it('needs the oauth2 settings when oauth2 is one of the modes', () => {
    expect(issuesOf({ auth: { mode: ['api_key', 'oauth2'] } }).map((issue) => issue.path)).toEqual([
      'auth.oauth2',
      'auth.oauth2.client_id',
    ]);
    expect(parseAuthConfig({ auth: { mode: ['api_key', 'oauth2'], oauth2: minimal } }).modes).toEqual([
      'api_key',
      'oauth2',
    ]);
  });
});
