import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

const jwks = { jwks_url: 'https://idp.example.com/.well-known/jwks.json' };

function issuesOf(raw: unknown) {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('the config was accepted');
}

describe('auth.mode as a list', () => {
  it('keeps the order, drops repeats, and names the first as mode', () => {
    const config = parseAuthConfig({ auth: { mode: ['jwt', 'api_key', 'jwt'], jwt: jwks } });
    expect(config.modes).toEqual(['jwt', 'api_key']);
    expect(config.mode).toBe('jwt');
    expect(Object.isFrozen(config.modes)).toBe(true);
  });

  it('takes a one-entry list as that mode', () => {
    expect(parseAuthConfig({ auth: { mode: ['api_key'] } })).toMatchObject({ mode: 'api_key', modes: ['api_key'] });
  });

  // A listed jwt needs a key source: @authlayer/jwt names it (its config-section tests), not core.
  it('leaves the sections of the listed modes to their packages', () => {
    expect(parseAuthConfig({ auth: { mode: ['api_key', 'jwt'] } })).not.toHaveProperty('modeSections');
  });

  it.each([
    [
      'a near miss of a known mode in a list',
      ['api_key', 'jtw'],
      'auth.mode[1]',
      'must be one of: api_key, jwt, oauth2 (did you mean jwt?)',
    ],
    ['an empty list', [], 'auth.mode', 'must list at least one mode'],
    [
      'a near miss of a known mode',
      'oauth',
      'auth.mode',
      'must be one of: api_key, jwt, oauth2 (did you mean oauth2?)',
    ],
    [
      'a package name with - for _ of a known mode',
      'api-key',
      'auth.mode',
      'must be one of: api_key, jwt, oauth2 (did you mean api_key?)',
    ],
    [
      'a name no package has',
      'SAML 2',
      'auth.mode',
      "must be one of: api_key, jwt, oauth2, or a mode package's name (lower case: letters, digits, _ and -)",
    ],
    ['a number', 7, 'auth.mode', 'must be one of: api_key, jwt, oauth2'],
  ])('refuses %s, naming the path', (_name, mode, path, message) => {
    expect(issuesOf({ auth: { mode } })).toEqual([{ path, message }]);
  });
});

describe('auth.fallback', () => {
  it.each(['no_auth', 'refuse'] as const)('accepts %s', (fallback) => {
    expect(parseAuthConfig({ auth: { fallback } }).fallback).toBe(fallback);
  });

  it('defaults to no_auth (the spec) and refuses anything else', () => {
    expect(parseAuthConfig({ auth: {} }).fallback).toBe('no_auth');
    expect(issuesOf({ auth: { fallback: 'open' } })).toEqual([
      { path: 'auth.fallback', message: 'must be one of: no_auth, refuse' },
    ]);
  });
});

describe('access', () => {
  it('fills empty lists, keeps each rule frozen, and splits off the policy', () => {
    const config = parseAuthConfig({
      auth: { mode: ['api_key', 'jwt'], jwt: jwks },
      access: {
        default: 'deny',
        report_only: true,
        'POST /invoke': { permissions: ['invoke'] },
        'GET /tenants/:tenant/reports{/:id}': {
          scopes: ['reports:read'],
          any: [{ roles: ['auditor'] }, { permissions: ['reports', 'reports'] }],
          modes: ['jwt'],
          tenant_param: 'tenant',
        },
        'GET /me': 'optional',
        'GET /status': 'public',
        '* /internal/*path': 'deny',
        'GET /ok': 'authenticated',
      },
    });
    expect(config.accessPolicy).toEqual({ default: 'deny', reportOnly: true, log: 'none' });
    expect(config.access).toEqual({
      'POST /invoke': { permissions: ['invoke'], scopes: [], roles: [], any: [], modes: null, tenantParam: null },
      'GET /tenants/:tenant/reports{/:id}': {
        permissions: [],
        scopes: ['reports:read'],
        roles: [],
        any: [
          { permissions: [], scopes: [], roles: ['auditor'] },
          { permissions: ['reports'], scopes: [], roles: [] },
        ],
        modes: ['jwt'],
        tenantParam: 'tenant',
      },
      'GET /me': 'optional',
      'GET /status': 'public',
      '* /internal/*path': 'deny',
      'GET /ok': 'authenticated',
    });
    const rule = config.access['POST /invoke'];
    expect(typeof rule === 'object' && Object.isFrozen(rule.permissions)).toBe(true);
  });

  it('takes log: refusals, and no other word', () => {
    expect(parseAuthConfig({ auth: {}, access: { log: 'refusals' } }).accessPolicy.log).toBe('refusals');
  });

  it('defaults to no rules, default not given (authenticated), and report_only false', () => {
    const config = parseAuthConfig({ auth: {} });
    expect(config.access).toEqual({});
    expect(config.accessPolicy).toEqual({ default: null, reportOnly: false, log: 'none' });
  });

  const rule = { permissions: ['x'] };
  it('takes a key whose pattern Express cannot parse (a Fastify wildcard): its adapter judges the pattern', () => {
    const config = parseAuthConfig({ auth: {}, access: { 'GET /files/*': rule, 'GET /a/(x)': 'deny' } });
    expect(Object.keys(config.access)).toEqual(['GET /files/*', 'GET /a/(x)']);
    // tenant_param is checked only against a pattern Express can parse.
    expect(() =>
      parseAuthConfig({ auth: {}, access: { 'GET /t/:tenant/*': { tenant_param: 'tenant' } } }),
    ).not.toThrow();
  });

  it.each([
    ['a lower-case method', { 'post /invoke': rule }, 'access.post /invoke', /must be "METHOD \/pattern"/],
    ['no path', { POST: rule }, 'access.POST', /must be "METHOD \/pattern"/],
    ['an unknown method', { 'FETCH /a': rule }, 'access.FETCH /a', /FETCH is not a method a rule can name/],
    ['a misspelt default', { defualt: 'deny' }, 'access.defualt', /\(did you mean default\?\)$/],
    ['an empty rule', { 'POST /invoke': {} }, 'access.POST /invoke', /^an empty rule/],
    ['an unknown word', { 'GET /a': 'private' }, 'access.GET /a', /public, optional, authenticated, deny/],
    [
      'an unknown field, with a suggestion',
      { 'POST /invoke': { permission: ['x'] } },
      'access.POST /invoke.permission',
      /^unknown field \(did you mean permissions\?\)$/,
    ],
    [
      'a name with a space',
      { 'POST /invoke': { roles: ['a b'] } },
      'access.POST /invoke.roles[0]',
      /printable ASCII without space/,
    ],
    [
      'a list that is a string',
      { 'POST /invoke': { scopes: 'read' } },
      'access.POST /invoke.scopes',
      /^must be a list, not a string$/,
    ],
    ['an empty any', { 'GET /a': { any: [] } }, 'access.GET /a.any', /^must list at least one entry$/],
    [
      'an any entry with any',
      { 'GET /a': { any: [{ roles: ['a'], any: [{ roles: ['b'] }] }] } },
      'access.GET /a.any[0].any',
      /^an entry of any lists only permissions, scopes, roles, claims, acr and max_age$/,
    ],
    [
      'an any entry with modes',
      { 'GET /a': { any: [{ roles: ['a'], modes: ['api_key'] }] } },
      'access.GET /a.any[0].modes',
      /^an entry of any lists only/,
    ],
    [
      'an any entry with tenant_param',
      { 'GET /a/:t': { any: [{ roles: ['a'], tenant_param: 't' }] } },
      'access.GET /a/:t.any[0].tenant_param',
      /^an entry of any lists only/,
    ],
    [
      'an empty any entry',
      { 'GET /a': { any: [{}] } },
      'access.GET /a.any[0]',
      /^must list permissions, scopes, roles, claims, acr or max_age$/,
    ],
    [
      'a mode auth.mode does not list',
      { 'GET /a': { roles: ['a'], modes: ['jwt'] } },
      'access.GET /a.modes',
      /^jwt is not a mode auth.mode lists$/,
    ],
    [
      'a mode package auth.mode does not list',
      { 'GET /a': { roles: ['a'], modes: ['saml'] } },
      'access.GET /a.modes',
      /^saml is not a mode auth.mode lists$/,
    ],
    [
      'a near miss of a known mode',
      { 'GET /a': { roles: ['a'], modes: ['jwr'] } },
      'access.GET /a.modes[0]',
      /^must be one of: api_key, jwt, oauth2 \(did you mean jwt\?\)$/,
    ],
    ['empty modes', { 'GET /a': { roles: ['a'], modes: [] } }, 'access.GET /a.modes', /^must list at least one mode$/],
    [
      'tenant_param naming no parameter',
      { 'GET /t/:tenant': { tenant_param: 'tenantId' } },
      'access.GET /t/:tenant.tenant_param',
      /^tenantId is not a parameter of the pattern \(it has tenant\)$/,
    ],
    [
      'tenant_param on a pattern without parameters',
      { 'GET /t': { tenant_param: 'tenant' } },
      'access.GET /t.tenant_param',
      /\(it has none\)$/,
    ],
    [
      'a default that is not a default',
      { default: 'public' },
      'access.default',
      /^must be one of: authenticated, deny$/,
    ],
    ['report_only that is not a boolean', { report_only: 'yes' }, 'access.report_only', /^must be a boolean/],
    ['a log that is not none or refusals', { log: 'all' }, 'access.log', /^must be one of: none, refusals$/],
    ['access as a list', [], 'access', /^must be a mapping, not a list$/],
  ])('refuses %s, naming the key', (_name, access, path, message) => {
    const issues = issuesOf({ auth: {}, access });
    expect(issues.find((issue) => issue.path === path)?.message).toMatch(message);
  });
});
