import { describe, expect, it } from '@jest/globals';
import { AuthError } from '../src/auth-error.js';
import { insufficientScopeChallenge } from '../src/challenge.js';
import { ForbiddenError, describeForbidden, isForbiddenError, isRequirableName } from '../src/forbidden-error.js';

describe('ForbiddenError', () => {
  it('is a 403 "forbidden" naming the missing required names', () => {
    const error = new ForbiddenError('permission_missing', null, ['invoke']);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'ForbiddenError',
      code: 'forbidden',
      status: 403,
      reason: 'permission_missing',
      challenge: null,
      missing: ['invoke'],
      message: 'the permission invoke is required',
    });
    expect(Object.isFrozen(error.missing)).toBe(true);
  });

  it('keeps its challenge and lists several names', () => {
    const challenge = insufficientScopeChallenge('x', ['a', 'b']);
    const error = new ForbiddenError('scope_missing', challenge, ['a', 'b']);
    expect(error.challenge).toBe(challenge);
    expect(error.message).toBe('the scopes a, b are required');
  });

  it('copies the list it is given', () => {
    const missing = ['admin'];
    const error = new ForbiddenError('role_missing', null, missing);
    missing.push('other');
    expect(error.missing).toEqual(['admin']);
  });
});

describe('describeForbidden', () => {
  it.each([
    ['permission_missing', ['invoke'], 'the permission invoke is required'],
    ['permission_missing', ['a', 'b'], 'the permissions a, b are required'],
    ['scope_missing', ['reports:read'], 'the scope reports:read is required'],
    ['role_missing', ['admin'], 'the role admin is required'],
    ['role_missing', ['admin', 'ops'], 'the roles admin, ops are required'],
    // The claim's path only: never the caller's value, nor the values a rule accepts.
    ['claim_mismatch', ['org.tier'], 'the claim org.tier does not have an accepted value'],
  ] as const)('%s %j → %s', (reason, missing, sentence) => {
    expect(describeForbidden(reason, missing)).toBe(sentence);
  });
});

describe('isForbiddenError', () => {
  it('recognises one made by another copy of core (no instanceof)', () => {
    const foreign = Object.assign(new Error('the role admin is required'), {
      name: 'ForbiddenError',
      reason: 'role_missing',
      challenge: null,
      missing: ['admin'],
      status: 403,
    });
    expect(isForbiddenError(foreign)).toBe(true);
    expect(isForbiddenError(new ForbiddenError('scope_missing', 'Bearer realm="authlayer"', ['s']))).toBe(true);
  });

  it.each([
    ['an AuthError', new AuthError('credentials_missing', 'Bearer realm="authlayer"')],
    ['a plain object', { name: 'ForbiddenError', reason: 'role_missing', challenge: null, missing: [], status: 403 }],
    [
      'a wrong status',
      Object.assign(new Error(), { name: 'ForbiddenError', reason: 'r', challenge: null, missing: [], status: 401 }),
    ],
    [
      'no missing list',
      Object.assign(new Error(), { name: 'ForbiddenError', reason: 'r', challenge: null, status: 403 }),
    ],
    [
      'a challenge that is a number',
      Object.assign(new Error(), { name: 'ForbiddenError', reason: 'r', challenge: 1, missing: [], status: 403 }),
    ],
    ['no reason', Object.assign(new Error(), { name: 'ForbiddenError', challenge: null, missing: [], status: 403 })],
    ['null', null],
  ])('is false for %s', (_name, value) => {
    expect(isForbiddenError(value)).toBe(false);
  });
});

describe('isRequirableName', () => {
  it.each(['invoke', 'reports:read', 'a', 'https://api.example.com/write', 'x'.repeat(128), '!#[]~'])(
    'accepts %j',
    (name) => {
      expect(isRequirableName(name)).toBe(true);
    },
  );

  it.each(['', 'two words', 'quo"te', 'back\\slash', 'tab\t', 'é', 'x'.repeat(129), 7, null, undefined])(
    'refuses %j',
    (name) => {
      expect(isRequirableName(name)).toBe(false);
    },
  );
});

describe('insufficientScopeChallenge', () => {
  it('follows RFC 6750 §3.1, with scope= only when scopes are required', () => {
    expect(insufficientScopeChallenge('the permission invoke is required')).toBe(
      'Bearer realm="authlayer", error="insufficient_scope", error_description="the permission invoke is required"',
    );
    expect(insufficientScopeChallenge('the scopes a, b are required', ['a', 'b'])).toBe(
      'Bearer realm="authlayer", error="insufficient_scope", error_description="the scopes a, b are required", scope="a b"',
    );
  });
});
