import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

// The rule fields that say more (`claims`) and ask for a step-up (`acr`, `max_age`, RFC 9470):
// their shapes, where they may stand, and the message naming the field when they are wrong.

function issuesOf(access: unknown) {
  try {
    parseAuthConfig({ auth: {}, access });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  throw new Error('the config was accepted');
}

const base = { permissions: [], scopes: [], roles: [], any: [], modes: null, tenantParam: null };

describe('access: claims, acr and max_age', () => {
  it('converts them once (max_age → maxAge), on a rule and inside any, and leaves other rules as they were', () => {
    const { access } = parseAuthConfig({
      auth: {},
      access: {
        'GET /a': { claims: { 'org.tier': ['gold', 'platinum'], active: [true], level: [3] } },
        'GET /b': { acr: ['urn:mfa', 'urn:mfa'], max_age: 300 },
        'GET /c': {
          roles: ['x'],
          any: [{ scopes: ['s'] }, { acr: ['urn:mfa'], max_age: 0, claims: { 'a.b': ['c'] } }],
        },
        'GET /d': { roles: ['x'] },
      },
    });
    expect(access).toEqual({
      'GET /a': { ...base, claims: { 'org.tier': ['gold', 'platinum'], active: [true], level: [3] } },
      'GET /b': { ...base, acr: ['urn:mfa'], maxAge: 300 },
      'GET /c': {
        ...base,
        roles: ['x'],
        any: [
          { permissions: [], scopes: ['s'], roles: [] },
          { permissions: [], scopes: [], roles: [], claims: { 'a.b': ['c'] }, acr: ['urn:mfa'], maxAge: 0 },
        ],
      },
      'GET /d': { ...base, roles: ['x'] },
    });
    const rule = access['GET /a'];
    expect(typeof rule === 'object' && Object.isFrozen(rule.claims)).toBe(true);
  });

  it('takes a namespaced claim name (a URL) as a path', () => {
    const { access } = parseAuthConfig({
      auth: {},
      access: { 'GET /a': { claims: { 'https://x.example/org': ['a'] } } },
    });
    expect(access['GET /a']).toMatchObject({ claims: { 'https://x.example/org': ['a'] } });
  });

  it.each([
    ['claims that is a list', { claims: ['org'] }, 'claims', /^must be a mapping, not a list$/],
    ['claims that names no claim', { claims: {} }, 'claims', /^must name at least one claim$/],
    ['a claim with no value', { claims: { tier: [] } }, 'claims.tier', /^must be a non-empty list of strings/],
    ['a claim value that is not a list', { claims: { tier: 'gold' } }, 'claims.tier', /^must be a list, not a string$/],
    [
      'a claim value that is a mapping',
      { claims: { tier: [{ a: 1 }] } },
      'claims.tier[0]',
      /^must be a string, a number or a boolean \(true or false\), not a mapping$/,
    ],
    ['a claim value that is null', { claims: { tier: [null] } }, 'claims.tier[0]', /, not null$/],
    ['a claim path with a space', { claims: { 'a b': ['x'] } }, 'claims.a b', /^must be a claim name or dot path/],
    ['a claim path with a quote', { claims: { 'a"b': ['x'] } }, 'claims.a"b', /without space, " or \\$/],
    ['acr that is a word', { acr: 'urn:mfa' }, 'acr', /^must be a list, not a string$/],
    ['an empty acr', { acr: [] }, 'acr', /^must list at least one acr value$/],
    ['an acr value with a space', { acr: ['a b'] }, 'acr[0]', /printable ASCII without space/],
    ['an acr value that is a number', { acr: [2] }, 'acr[0]', /^must be a string, not a number$/],
    ['a negative max_age', { max_age: -1 }, 'max_age', /^must be 0 or more seconds$/],
    ['a fractional max_age', { max_age: 1.5 }, 'max_age', /^must be an integer, not a fraction$/],
    ['max_age as a string', { max_age: '300' }, 'max_age', /^must be a number, not a string$/],
    ['a misspelt max_age', { maxAge: 300 }, 'maxAge', /^unknown field \(did you mean max_age\?\)$/],
    ['a misspelt claims', { claim: { a: ['b'] } }, 'claim', /^unknown field \(did you mean claims\?\)$/],
  ])('refuses %s, naming the field', (_name, rule, field, message) => {
    const issues = issuesOf({ 'GET /a': rule });
    expect(issues.find((issue) => issue.path === `access.GET /a.${field}`)?.message).toMatch(message);
  });

  it('names the field inside an any entry', () => {
    expect(issuesOf({ 'GET /a': { any: [{ roles: ['r'] }, { max_age: -5 }] } })).toEqual([
      { path: 'access.GET /a.any[1].max_age', message: 'must be 0 or more seconds' },
    ]);
  });

  it('counts each as something a rule or an any entry asks for, and lists them when none is given', () => {
    expect(() => parseAuthConfig({ auth: {}, access: { 'GET /a': { max_age: 0 } } })).not.toThrow();
    expect(issuesOf({ 'GET /a': {} })).toEqual([
      {
        path: 'access.GET /a',
        message:
          'an empty rule: list permissions, scopes, roles, claims, acr, max_age, any, modes, tenant_param or params (or write authenticated)',
      },
    ]);
    expect(issuesOf({ 'GET /a': { any: [{}] } })).toEqual([
      { path: 'access.GET /a.any[0]', message: 'must list permissions, scopes, roles, claims, acr or max_age' },
    ]);
  });
});
