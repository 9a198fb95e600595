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

  it('needs a key source for jwt when jwt is listed', () => {
    expect(issuesOf({ auth: { mode: ['api_key', 'jwt'] } })).toEqual([
      { path: 'auth.jwt', message: 'jwt mode needs jwks_url, public_key_env, discovery or providers' },
    ]);
  });

  it.each([
    ['an unknown entry', ['api_key', 'saml'], 'auth.mode[1]', 'must be one of: api_key, jwt, oauth2'],
    ['an empty list', [], 'auth.mode', 'must list at least one mode'],
    ['an unknown mode', 'saml', 'auth.mode', 'must be one of: api_key, jwt, oauth2'],
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
  it('fills empty lists and keeps each rule frozen', () => {
    const config = parseAuthConfig({
      auth: {},
      access: {
        'POST /invoke': { permissions: ['invoke'] },
        'GET /reports/x': { scopes: ['reports:read'], roles: ['a', 'b'] },
      },
    });
    expect(config.access).toEqual({
      'POST /invoke': { permissions: ['invoke'], scopes: [], roles: [] },
      'GET /reports/x': { permissions: [], scopes: ['reports:read'], roles: ['a', 'b'] },
    });
    expect(Object.isFrozen(config.access['POST /invoke']?.permissions)).toBe(true);
  });

  it.each([
    [
      'a lower-case method',
      { 'post /invoke': { permissions: ['x'] } },
      'access.post /invoke',
      'must be "METHOD /path", for example "POST /invoke"',
    ],
    ['no path', { POST: { permissions: ['x'] } }, 'access.POST', 'must be "METHOD /path", for example "POST /invoke"'],
    [
      'an entry requiring nothing',
      { 'POST /invoke': {} },
      'access.POST /invoke',
      'must list permissions, scopes or roles',
    ],
    ['an unknown field', { 'POST /invoke': { permission: ['x'] } }, 'access.POST /invoke.permission', 'unknown field'],
    [
      'a name with a space',
      { 'POST /invoke': { roles: ['a b'] } },
      'access.POST /invoke.roles[0]',
      'must be 1 to 128 characters of printable ASCII without space, " or \\',
    ],
    [
      'a list that is a string',
      { 'POST /invoke': { scopes: 'read' } },
      'access.POST /invoke.scopes',
      'must be a list, not a string',
    ],
    ['access as a list', [], 'access', 'must be a mapping, not a list'],
  ])('refuses %s', (_name, access, path, message) => {
    expect(issuesOf({ auth: {}, access })).toContainEqual({ path, message });
  });
});
