import { describe, expect, it } from '@jest/globals';
import { toRule } from '../src/access/rule-input.js';
import { ruleCheck } from '../src/request/guard.js';

// A rule given by hand to `requireAccess` (Express, Fastify, Hono): checked whole at start-up as
// the config's schema checks one, so a typo is a TypeError naming the mistake, never an open route.

const fails = (rule: unknown) => () => ruleCheck(rule as never);

describe('requireAccess(rule) refuses a rule it cannot enforce, at start-up', () => {
  it.each([
    [
      'a word of the table',
      'public',
      'needs a rule object of the access table, not the word "public" (a mistyped key?)',
    ],
    ['nothing', undefined, 'needs a rule object of the access table, not undefined'],
    ['null', null, 'needs a rule object of the access table, not null'],
    ['a list', ['admin'], 'needs a rule object of the access table, not a list'],
    ['a number', 7, 'needs a rule object of the access table, not a number'],
    ['a YAML spelling', { max_age: 60 }, 'unknown field max_age (a parsed rule spells it maxAge)'],
    ['a typo', { role: ['admin'] }, 'unknown field role'],
    ['an own property named like an Object method', { toString: ['x'] }, 'unknown field toString'],
    ['modes', { roles: ['a'], modes: ['jwt'] }, 'modes and tenant_param need auth.access'],
    ['tenant_param', { roles: ['a'], tenantParam: 'tenant' }, 'modes and tenant_param need auth.access'],
    ['any that is not a list', { any: { roles: ['a'] } }, 'any must be a list'],
    ['an entry of any that is not an object', { any: ['admin'] }, 'an entry of any must be an object'],
    ['a null entry of any', { any: [null] }, 'an entry of any must be an object'],
    ['any nested in any', { any: [{ any: [] }] }, 'an entry of any lists only permissions, scopes, roles'],
    ['an empty rule', {}, 'the rule requires nothing'],
    ['empty lists', { roles: [], scopes: [] }, 'the rule requires nothing'],
    ['an empty entry of any', { roles: ['a'], any: [{ roles: [] }] }, 'an entry of any requires nothing'],
    ['a name with a space', { roles: ['power user'] }, 'roles must be a list of names of printable ASCII'],
    ['a list that is a word', { scopes: 'read' }, 'scopes must be a list of names'],
    ['claims as a list', { claims: ['tenant'] }, 'claims must map claim names or dot paths'],
    ['claims null', { claims: null }, 'claims must map claim names or dot paths'],
    ['no claim', { claims: {} }, 'claims must name at least one claim'],
    ['a claim path with a quote', { claims: { 'a"b': ['x'] } }, 'a claim path must be printable ASCII'],
    ['a claim with no value', { claims: { tenant: [] } }, 'claims must map claim names or dot paths'],
    ['a claim of an object', { claims: { tenant: [{}] } }, 'claims must map claim names or dot paths'],
    ['an empty acr', { acr: [] }, 'acr must be a non-empty list'],
    ['acr as a word', { acr: 'mfa' }, 'acr must be a non-empty list'],
    ['a negative maxAge', { maxAge: -1 }, 'maxAge must be a whole number of seconds, 0 or more'],
    ['a fractional maxAge', { maxAge: 1.5 }, 'maxAge must be a whole number of seconds'],
    ['maxAge as text', { maxAge: '60' }, 'maxAge must be a whole number of seconds'],
  ])('%s', (_name, rule, message) => {
    expect(fails(rule)).toThrow(TypeError);
    expect(fails(rule)).toThrow(`requireAccess(rule): ${message}`);
  });

  it('cuts a long word or field name in its message', () => {
    const long = 'x'.repeat(100);
    expect(fails(long)).toThrow(`, not the word "${'x'.repeat(20)}" (a mistyped key?)`);
    expect(fails({ [long]: 1 })).toThrow(new TypeError(`requireAccess(rule): unknown field ${'x'.repeat(40)}`));
  });

  it('names its caller in the message', () => {
    expect(() => toRule('deny', 'requireAccessWith(rule)')).toThrow('requireAccessWith(rule): needs a rule object');
  });
});

describe('requireAccess(rule) takes a rule it can enforce', () => {
  it('fills the lists left out, drops repeated names, and keeps no field not given', () => {
    expect(toRule({ roles: ['admin', 'admin'], acr: ['mfa', 'mfa'], maxAge: 0 })).toEqual({
      permissions: [],
      scopes: [],
      roles: ['admin'],
      acr: ['mfa'],
      maxAge: 0,
      any: [],
      modes: null,
      tenantParam: null,
    });
  });

  it('takes a rule of any alone, and a parsed rule with modes and tenant_param null', () => {
    const rule = toRule({ any: [{ roles: ['admin'] }, { scopes: ['reports:read'] }], modes: null, tenantParam: null });
    expect(rule.any.map((entry) => [entry.roles, entry.scopes])).toEqual([
      [['admin'], []],
      [[], ['reports:read']],
    ]);
  });

  it("keeps its own frozen copy of claims: the caller's later changes do not open or close the route", () => {
    const claims: Record<string, (string | number | boolean)[]> = { 'org.tier': ['gold', 2, true] };
    const rule = toRule({ claims });
    claims['org.tier']!.push('bronze');
    claims.other = ['x'];
    expect(rule.claims).toEqual({ 'org.tier': ['gold', 2, true] });
    expect(Object.isFrozen(rule.claims) && Object.isFrozen(rule.claims!['org.tier'])).toBe(true);
    expect(Object.isFrozen(rule)).toBe(true);
  });
});
