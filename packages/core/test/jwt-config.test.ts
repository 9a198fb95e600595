import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { isParsedAuthConfig, parseAuthConfig } from '../src/config/parse-auth-config.js';

// Fields of "JWT with real identity providers" (service contract, beyond the spec).
const jwtMode = (jwt: Record<string, unknown>) => ({ auth: { mode: 'jwt', jwt } });
const ISSUER = 'https://sso.example.com/realms/acme';

function issuesOf(raw: unknown): { path: string; message: string }[] {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return [...(error as ConfigError).issues];
  }
  throw new Error('parseAuthConfig accepted the config');
}

describe('auth.jwt: discovery, stale keys, required claims, token type, cookie', () => {
  it('reads every new field', () => {
    const { jwt } = parseAuthConfig(
      jwtMode({
        issuer: ISSUER,
        discovery: true,
        required_claims: ['sub', 'realm_access.roles', 'sub'],
        token_type: 'application/at+jwt',
        cookie: '__Host-session',
        stale_keys_seconds: 0,
      }),
    );
    expect(jwt).toMatchObject({
      issuer: ISSUER,
      discovery: true,
      jwksUrl: null,
      requiredClaims: ['sub', 'realm_access.roles'],
      tokenType: 'application/at+jwt',
      cookie: '__Host-session',
      staleKeysSeconds: 0,
      providers: [],
    });
  });

  it.each([0, 1, 3600, 86_400])('accepts stale_keys_seconds %d', (seconds) => {
    expect(
      parseAuthConfig(jwtMode({ jwks_url: 'https://idp/jwks', stale_keys_seconds: seconds })).jwt.staleKeysSeconds,
    ).toBe(seconds);
  });

  it.each([
    {
      name: 'stale_keys_seconds -1',
      jwt: { stale_keys_seconds: -1 },
      path: 'auth.jwt.stale_keys_seconds',
      message: 'must be 0 to 86400',
    },
    {
      name: 'stale_keys_seconds 86401',
      jwt: { stale_keys_seconds: 86_401 },
      path: 'auth.jwt.stale_keys_seconds',
      message: 'must be 0 to 86400',
    },
    {
      name: 'token_type with a space',
      jwt: { token_type: 'at jwt' },
      path: 'auth.jwt.token_type',
      message: 'must be a media type such as at+jwt or application/at+jwt',
    },
    {
      name: 'token_type empty',
      jwt: { token_type: '' },
      path: 'auth.jwt.token_type',
      message: 'must be a media type such as at+jwt or application/at+jwt',
    },
    {
      name: 'cookie with a ;',
      jwt: { cookie: 'a;b' },
      path: 'auth.jwt.cookie',
      message: 'must be a cookie name (RFC 6265 token)',
    },
    {
      name: 'required claim ..',
      jwt: { required_claims: ['a..b'] },
      path: 'auth.jwt.required_claims[0]',
      message: 'must be a claim name or a dot path such as realm_access.roles',
    },
    {
      name: 'discovery as a string',
      jwt: { discovery: 'yes' },
      path: 'auth.jwt.discovery',
      message: 'must be a boolean (true or false), not a string',
    },
  ])('refuses $name', ({ jwt, path, message }) => {
    expect(issuesOf(jwtMode({ jwks_url: 'https://idp/jwks', ...jwt }))).toEqual([{ path, message }]);
  });

  it.each([
    {
      name: 'discovery without issuer',
      jwt: { discovery: true },
      issues: [{ path: 'auth.jwt.issuer', message: 'discovery needs issuer' }],
    },
    {
      name: 'discovery with jwks_url',
      jwt: { discovery: true, issuer: ISSUER, jwks_url: 'https://idp/jwks' },
      issues: [
        {
          path: 'auth.jwt',
          message: 'set one of jwks_url, public_key_env, public_key_file and discovery, not jwks_url and discovery',
        },
      ],
    },
    {
      name: 'discovery with public_key_env',
      jwt: { discovery: true, issuer: ISSUER, public_key_env: 'PEM' },
      issues: [
        {
          path: 'auth.jwt',
          message:
            'set one of jwks_url, public_key_env, public_key_file and discovery, not public_key_env and discovery',
        },
      ],
    },
    {
      name: 'discovery with HS256',
      jwt: { discovery: true, issuer: ISSUER, algorithms: ['HS256'] },
      issues: [
        {
          path: 'auth.jwt.algorithms',
          message: 'HS256 need a shared secret through public_key_env or public_key_file, not discovery',
        },
      ],
    },
  ])('refuses $name', ({ jwt, issues }) => {
    expect(issuesOf(jwtMode(jwt))).toEqual(issues);
  });
});

describe('auth.jwt.providers', () => {
  const a = { issuer: 'https://a.example.com', discovery: true };
  const b = {
    issuer: 'https://b.example.com',
    jwks_url: 'https://b.example.com/keys',
    audience: 'b-api',
    claims: { roles: 'groups' },
  };

  it('gives each provider its own key source and the rest of auth.jwt where it says nothing', () => {
    const { jwt } = parseAuthConfig(
      jwtMode({
        audience: 'api',
        algorithms: ['ES256'],
        leeway_seconds: 5,
        required_claims: ['sub'],
        cookie: 'at',
        providers: [a, b],
      }),
    );
    expect(jwt.providers).toHaveLength(2);
    expect(jwt.providers[0]).toMatchObject({
      issuer: a.issuer,
      discovery: true,
      jwksUrl: null,
      publicKeyEnv: null,
      publicKeyFile: null,
      audience: 'api',
    });
    expect(jwt.providers[0]).toMatchObject({
      algorithms: ['ES256'],
      leewaySeconds: 5,
      requiredClaims: ['sub'],
      staleKeysSeconds: 3600,
    });
    expect(jwt.providers[1]).toMatchObject({
      issuer: b.issuer,
      discovery: false,
      jwksUrl: b.jwks_url,
      audience: 'b-api',
    });
    expect(jwt.providers[1]?.claims).toMatchObject({ roles: 'groups', userId: 'sub' });
    expect(jwt.cookie).toBe('at');
    expect(Object.isFrozen(jwt.providers[1]?.claims)).toBe(true);
  });

  it('trust_roles: true by default, inherited from auth.jwt, each provider may set its own', () => {
    expect(parseAuthConfig(jwtMode({ providers: [a] })).jwt.providers[0]?.trustRoles).toBe(true);
    const { jwt } = parseAuthConfig(jwtMode({ trust_roles: false, providers: [a, { ...b, trust_roles: true }] }));
    expect(jwt.providers.map((p) => p.trustRoles)).toEqual([false, true]);
    expect(issuesOf(jwtMode({ providers: [{ ...a, trust_roles: 'no' }] }))).toEqual([
      { path: 'auth.jwt.providers[0].trust_roles', message: expect.any(String) },
    ]);
  });

  it('lets a provider clear an inherited audience with null', () => {
    const { jwt } = parseAuthConfig(jwtMode({ audience: 'api', providers: [{ ...a, audience: null }] }));
    expect(jwt.providers[0]?.audience).toBeNull();
  });

  it.each([
    {
      name: 'an empty list',
      jwt: { providers: [] },
      issues: [{ path: 'auth.jwt.providers', message: 'must list at least one provider' }],
    },
    {
      name: 'a provider without issuer',
      jwt: { providers: [{ discovery: true }] },
      issues: [{ path: 'auth.jwt.providers[0].issuer', message: 'is required' }],
    },
    {
      name: 'a provider without key source',
      jwt: { providers: [{ issuer: 'https://c' }] },
      issues: [
        {
          path: 'auth.jwt.providers[0]',
          message: 'each provider needs jwks_url, public_key_env, public_key_file or discovery',
        },
      ],
    },
    {
      name: 'two sources in one provider',
      jwt: { providers: [{ ...b, public_key_env: 'PEM' }] },
      issues: [
        {
          path: 'auth.jwt.providers[0]',
          message:
            'set one of jwks_url, public_key_env, public_key_file and discovery, not jwks_url and public_key_env',
        },
      ],
    },
    {
      name: 'the same issuer twice',
      jwt: { providers: [a, b, { ...a, discovery: false, public_key_env: 'PEM' }] },
      issues: [{ path: 'auth.jwt.providers[2].issuer', message: 'duplicate issuer "https://a.example.com"' }],
    },
    {
      name: 'a key source beside providers',
      jwt: { jwks_url: 'https://x/jwks', issuer: 'https://x', discovery: true, providers: [a] },
      issues: ['jwks_url', 'issuer', 'discovery'].map((field) => ({
        path: `auth.jwt.${field}`,
        message: 'set it in each entry of providers, not beside them',
      })),
    },
    {
      name: 'an inherited HMAC algorithm with discovery',
      jwt: { algorithms: ['HS512'], providers: [a] },
      issues: [
        {
          path: 'auth.jwt.providers[0].algorithms',
          message: 'HS512 need a shared secret through public_key_env or public_key_file, not discovery',
        },
      ],
    },
    {
      name: 'an unknown provider field',
      jwt: { providers: [{ ...a, cookie: 'x' }] },
      issues: [{ path: 'auth.jwt.providers[0].cookie', message: 'unknown field' }],
    },
  ])('refuses $name', ({ jwt, issues }) => {
    expect(issuesOf(jwtMode(jwt))).toEqual(issues);
  });
});

describe('the parsed marker', () => {
  // Another copy of core recognises a parsed config by this registry key: it must never change.
  it('is the registered symbol authlayer.config', () => {
    const config = parseAuthConfig({ auth: {} });
    expect((config as unknown as Record<symbol, unknown>)[Symbol.for('authlayer.config')]).toBe(true);
    expect(isParsedAuthConfig({ [Symbol.for('authlayer.config')]: true })).toBe(true);
    expect(isParsedAuthConfig({ [Symbol.for('authlayer.config.other')]: true })).toBe(false);
  });
});
