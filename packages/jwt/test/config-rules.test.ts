import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger, createSigningKey } from '@authlayer/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { jwtOf } from '../src/config/jwt-section.js';
import { createJwtHandler } from '../src/index.js';
import { checkedSection, configErrorOf, issuesOf, sectionIssuesOf, settingsOf } from './config-of.js';

// The rules of `auth.jwt` that span fields (service contract, "JWT with real identity providers"),
// its key files, the resource's audience and the sender-constraint fields: each line is the one
// core gave before the section moved to this package.

const jwtMode = (jwt: Record<string, unknown>) => ({ auth: { mode: 'jwt', jwt } });
const ISSUER = 'https://sso.example.com/realms/acme';

describe('auth.jwt: discovery, stale keys, required claims, token type, cookie', () => {
  it('reads every new field', () => {
    const jwt = settingsOf(
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
    expect(settingsOf(jwtMode({ jwks_url: 'https://idp/jwks', stale_keys_seconds: seconds })).staleKeysSeconds).toBe(
      seconds,
    );
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
    const jwt = settingsOf(
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
    expect(settingsOf(jwtMode({ providers: [a] })).providers[0]?.trustRoles).toBe(true);
    const jwt = settingsOf(jwtMode({ trust_roles: false, providers: [a, { ...b, trust_roles: true }] }));
    expect(jwt.providers.map((p) => p.trustRoles)).toEqual([false, true]);
    expect(issuesOf(jwtMode({ providers: [{ ...a, trust_roles: 'no' }] }))).toEqual([
      { path: 'auth.jwt.providers[0].trust_roles', message: expect.any(String) },
    ]);
  });

  it('lets a provider clear an inherited audience with null', () => {
    const jwt = settingsOf(jwtMode({ audience: 'api', providers: [{ ...a, audience: null }] }));
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

describe('auth.jwt beside another mode', () => {
  it('is kept as written by core, and checked by the loader with the rules that always hold', () => {
    const config = parseAuthConfig({ auth: { mode: ['hmac'], jwt: { leeway_seconds: 301 } } });
    expect(config.modeSections).toEqual({ jwt: { leeway_seconds: 301 } });
    expect(sectionIssuesOf(config.modeSections?.jwt)).toEqual([
      { path: 'auth.jwt.leeway_seconds', message: 'must be 0 to 300' },
    ]);
    expect(sectionIssuesOf({ discovery: true })).toEqual([
      { path: 'auth.jwt.issuer', message: 'discovery needs issuer' },
    ]);
  });
});

describe('auth.jwt: the file fields and their rules', () => {
  it('converts public_key_file once to camelCase', () => {
    expect(settingsOf(jwtMode({ public_key_file: '/p.pem' })).publicKeyFile).toBe('/p.pem');
  });

  it.each([
    ['an empty path', { public_key_file: '' }, 'auth.jwt.public_key_file', /must not be empty/],
    [
      'public_key_file with public_key_env',
      { public_key_file: '/p', public_key_env: 'P' },
      'auth.jwt',
      /not public_key_env and public_key_file/,
    ],
    [
      'public_key_file beside providers',
      { public_key_file: '/p', providers: [{ issuer: 'i', public_key_file: '/q' }] },
      'auth.jwt.public_key_file',
      /in each entry of providers/,
    ],
  ])('refuses %s, naming the field', (_name, jwt, path, message) => {
    const issue = issuesOf(jwtMode(jwt)).find((candidate) => candidate.path === path);
    expect(issue?.message).toMatch(message);
  });

  it('takes HMAC algorithms with public_key_file (a shared secret in a file)', () => {
    expect(settingsOf(jwtMode({ public_key_file: '/s', algorithms: ['HS256'] })).algorithms).toEqual(['HS256']);
  });
});

describe('auth.jwt: the key files the handler names', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'authlayer-jwt-files-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists each provider key file once, as an absolute path', async () => {
    const key = await createSigningKey('RS256');
    const [a, b] = ['a.pem', 'b.pem'].map((name) => {
      const path = join(dir, name);
      writeFileSync(path, key.envValue);
      return path as string;
    });
    const config = parseAuthConfig(
      jwtMode({
        providers: [
          { issuer: 'https://i.example', public_key_file: relative(process.cwd(), a as string) },
          { issuer: 'https://j.example', public_key_file: b },
          { issuer: 'https://k.example', public_key_file: b },
        ],
      }),
    );
    const handler = await createJwtHandler(config, { env: {}, logger: createCaptureLogger() });
    expect(handler.keyFiles).toEqual([a, b]);
  });
});

describe('auth.jwt and the resource (RFC 8707)', () => {
  const identifier = 'https://mcp.example.com/mcp';

  it('gives auth.jwt and its providers the identifier as their audience where none is written', () => {
    const providers = [
      { issuer: 'https://a.example', jwks_url: 'https://a.example/jwks', audience: 'own' },
      { issuer: 'https://b.example', jwks_url: 'https://b.example/jwks' },
    ];
    const jwt = settingsOf({ auth: { mode: 'jwt', jwt: { providers } }, resource: { identifier } });
    expect(jwt.audience).toBe(identifier);
    expect(jwt.providers.map((provider) => provider.audience)).toEqual(['own', identifier]);
    expect(settingsOf(jwtMode({ audience: 'x', discovery: true, issuer: ISSUER })).audience).toBe('x');
  });

  it('sets audienceStrict with resource.audience_strict, only where the audience is the resource', () => {
    const withResource = (jwt: Record<string, unknown>, audienceStrict?: boolean) =>
      settingsOf({
        auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp/jwks', ...jwt } },
        resource: { identifier, ...(audienceStrict === undefined ? {} : { audience_strict: audienceStrict }) },
      });
    expect(withResource({}).audienceStrict).toBeUndefined();
    expect(withResource({}, true).audienceStrict).toBe(true);
    expect(withResource({ audience: 'api://other' }, true).audienceStrict).toBeUndefined();
  });

  it('leaves a section the engine checked to the resource binding too', () => {
    const checked = checkedSection({ jwks_url: 'https://idp/jwks' });
    const config = parseAuthConfig({ auth: { mode: 'jwt' }, resource: { identifier } });
    expect(jwtOf(config, { section: checked }).audience).toBe(identifier);
  });
});

describe('auth.jwt: sender-constrained tokens', () => {
  it('reads dpop, dpop_algorithms (without repeats) and certificate_bound', () => {
    const written = { dpop: 'required', dpop_algorithms: ['ES256', 'ES256', 'PS256'], certificate_bound: 'allowed' };
    expect(checkedSection(written)).toMatchObject({
      dpop: 'required',
      dpopAlgorithms: ['ES256', 'PS256'],
      certificateBound: 'allowed',
    });
  });

  it.each([
    [{ dpop: 'yes' }, 'auth.jwt.dpop: must be one of: off, allowed, required'],
    [
      { dpop_algorithms: ['HS256'] },
      'auth.jwt.dpop_algorithms[0]: must be one of: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519',
    ],
    [{ dpop_algorithms: [] }, 'auth.jwt.dpop_algorithms: must list at least one algorithm'],
    [
      { providers: [{ issuer: 'x', jwks_url: 'https://x', dpop: 'allowed' }] },
      'auth.jwt.providers[0].dpop: unknown field',
    ],
  ])('refuses %j', (jwt, message) => {
    expect(configErrorOf({ auth: { jwt } }).message).toContain(message);
  });
});
