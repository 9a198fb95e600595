import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { oauth2Of, section } from '../src/config/oauth2-section.js';
import { checkedSection, configErrorOf, issuesOf, sectionIssuesOf, settingsOf } from './config-of.js';

// `auth.oauth2`: its fields, defaults, rules and error lines, checked by this package (core keeps
// the section as written). Every line below is the one core gave before the section moved here.

const URL_ = 'https://sso.example.com/token/introspect';
const oauth2 = (fields: Record<string, unknown>, mode: unknown = 'oauth2') => ({ auth: { mode, oauth2: fields } });
const minimal = { introspection_url: URL_, client_id: 'invoke-api' };
const ACTIVE_ONLY = /^oauth2 mode needs/;

describe('auth.oauth2', () => {
  it('fills every default of the minimal oauth2 config (written out, not imported)', () => {
    expect(settingsOf(oauth2(minimal))).toEqual({
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
    const settings = settingsOf(
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
    expect(settings).toMatchObject({
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
    expect(Object.isFrozen(settings.claims)).toBe(true);
  });

  it.each([
    ['cache_seconds', 3600, 'cacheSeconds'],
    ['timeout_ms', 60_000, 'timeoutMs'],
  ] as const)('accepts %s at its upper bound %d', (field, value, key) => {
    expect(settingsOf(oauth2({ ...minimal, [field]: value }))[key]).toBe(value);
  });

  it('keeps cache_store, a Redis URL', () => {
    expect(settingsOf(oauth2({ ...minimal, cache_store: 'rediss://r:6380/1' })).cacheStore).toBe('rediss://r:6380/1');
  });

  it('needs nothing of auth.oauth2 in another mode', () => {
    expect(checkedSection(undefined).introspectionUrl).toBeNull();
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
    // The loader, beside any mode, checks all but what only an oauth2 that authenticates needs.
    if (!ACTIVE_ONLY.test(message)) expect(sectionIssuesOf(fields)).toEqual([{ path, message }]);
  });

  it('checks discovery against its issuer in every mode', () => {
    expect(sectionIssuesOf({ discovery: true })).toEqual([
      { path: 'auth.oauth2.issuer', message: 'discovery needs issuer' },
    ]);
    expect(issuesOf(oauth2({ discovery: true }, 'api_key'))).toContainEqual({
      path: 'auth.oauth2.issuer',
      message: 'discovery needs issuer',
    });
  });
});

describe('auth.oauth2: oauth2 in a list of modes', () => {
  it('needs the oauth2 settings when oauth2 is one of the modes', () => {
    expect(issuesOf({ auth: { mode: ['api_key', 'oauth2'] } }).map((issue) => issue.path)).toEqual([
      'auth.oauth2',
      'auth.oauth2.client_id',
    ]);
    expect(settingsOf({ auth: { mode: ['api_key', 'oauth2'], oauth2: minimal } }).clientId).toBe('invoke-api');
  });
});

describe('auth.oauth2: the section', () => {
  it('is auth.oauth2, every default filled when not written, read-only', () => {
    expect(section).toBe('oauth2');
    const settings = checkedSection(undefined);
    expect(settings).toMatchObject({ introspectionUrl: null, clientId: null, cacheSeconds: 60, timeoutMs: 5000 });
    for (const part of [settings, settings.claims, settings.dpopAlgorithms]) expect(Object.isFrozen(part)).toBe(true);
  });

  it('takes deps.section, as the engine checked it, over the config', () => {
    const checked = checkedSection({ ...minimal, client_id: 'from-engine' });
    const config = parseAuthConfig(oauth2({ ...minimal, client_id: 'written' }));
    expect(oauth2Of(config, { section: checked }).clientId).toBe('from-engine');
  });

  it('converts client_secret_file once to camelCase', () => {
    expect(settingsOf(oauth2({ ...minimal, client_secret_file: '/s' })).clientSecretFile).toBe('/s');
  });

  it.each([
    [{ auth: { oauth2: [] } }, 'auth.oauth2: must be a mapping, not a list'],
    [
      { auth: { oauth2: { client_secret_env: 'A'.repeat(1_000_000) } } },
      'auth.oauth2.client_secret_env: must be at most 128 characters',
    ],
    [
      { auth: { oauth2: { client_secret_fiel: '/s' } } },
      'auth.oauth2.client_secret_fiel: unknown field (did you mean client_secret_file?)',
    ],
  ])('refuses %#: the line core gave', (raw, message) => {
    expect(configErrorOf(raw).message).toBe(message);
  });
});

describe('auth.oauth2: the lines core gave', () => {
  // What moving the section out of core into this package keeps: the same lines for the same mistakes.
  it('gives the lines core gave, by the handler and by the loader alike', () => {
    const lines = [
      { path: 'auth.oauth2.auth_method', message: 'must be one of: client_secret_basic, client_secret_post' },
      { path: 'auth.oauth2.cache_seconds', message: 'must be 0 to 3600' },
    ];
    const written = { auth_method: 'private_key_jwt', cache_seconds: 3601 };
    expect(sectionIssuesOf(written)).toEqual(lines);
    expect(issuesOf(oauth2(written))).toEqual(lines);
  });
});

describe('auth.oauth2: sender-constrained tokens', () => {
  it('reads dpop and certificate_bound', () => {
    expect(checkedSection({ dpop: 'allowed' })).toMatchObject({ dpop: 'allowed', certificateBound: 'off' });
  });

  it.each([
    [
      { dpop_algorithms: ['none'] },
      'auth.oauth2.dpop_algorithms[0]: must be one of: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519',
    ],
    [{ certificate_bound: true }, 'auth.oauth2.certificate_bound: must be one of'],
  ])('refuses %j', (oauth2, message) => {
    expect(configErrorOf({ auth: { oauth2 } }).message).toContain(message);
  });
});

describe('auth.oauth2 and the resource (RFC 8707)', () => {
  const identifier = 'https://mcp.example.com/mcp';
  const withResource = (fields: Record<string, unknown>, resource: Record<string, unknown> | null) =>
    settingsOf({ ...oauth2({ ...minimal, ...fields }), ...(resource === null ? {} : { resource }) });

  it('takes the identifier as its audience where none is written, and keeps its own', () => {
    expect(withResource({}, { identifier }).audience).toBe(identifier);
    expect(withResource({ audience: 'api' }, { identifier }).audience).toBe('api');
    expect(withResource({}, null).audience).toBeNull();
  });

  it('sets audienceStrict with resource.audience_strict, only where the audience is the resource', () => {
    expect(withResource({}, { identifier }).audienceStrict).toBeUndefined();
    expect(withResource({}, { identifier, audience_strict: true }).audienceStrict).toBe(true);
    expect(withResource({ audience: 'api' }, { identifier, audience_strict: true }).audienceStrict).toBeUndefined();
  });
});
