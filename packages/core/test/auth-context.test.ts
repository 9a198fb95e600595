import { describe, expect, it } from '@jest/globals';
import { clockLeewayOf, createAuthContext } from '../src/auth-context.js';
import { emptyContext } from './empty-context.js';

describe('createAuthContext', () => {
  it('fills every missing field with null or an empty list', () => {
    expect(createAuthContext({ method: 'none' })).toEqual(emptyContext('none'));
  });

  it('keeps the given fields, drops duplicates in order, and serialises to the contract shape', () => {
    const context = createAuthContext({
      method: 'jwt',
      userId: 'u-1',
      email: 'a@example.com',
      name: 'Ada',
      roles: ['admin', 'user', 'admin'],
      permissions: ['read'],
      scopes: ['openid', 'openid', 'profile'],
      tenantId: 't-9',
    });
    expect(JSON.parse(JSON.stringify(context))).toEqual({
      method: 'jwt',
      userId: 'u-1',
      email: 'a@example.com',
      name: 'Ada',
      roles: ['admin', 'user'],
      permissions: ['read'],
      scopes: ['openid', 'profile'],
      tenantId: 't-9',
    });
  });

  it('is frozen, lists included', () => {
    const context = createAuthContext({ method: 'api_key', roles: ['a'] });
    expect(Object.isFrozen(context)).toBe(true);
    expect(Object.isFrozen(context.roles)).toBe(true);
    expect(() => (context.roles as string[]).push('b')).toThrow(TypeError);
  });

  it('never shares a list with its caller, whatever its length', () => {
    for (const roles of [[], ['a'], ['a', 'b'], ['a', 'a']]) {
      const context = createAuthContext({ method: 'jwt', roles, scopes: roles });
      roles.push('added later');
      expect(context.roles).not.toContain('added later');
      expect(context.scopes).not.toContain('added later');
      expect(Object.isFrozen(context.roles) && Object.isFrozen(context.scopes)).toBe(true);
    }
  });

  it('gives empty lists that cannot be changed, even when shared', () => {
    const [first, second] = [createAuthContext({ method: 'jwt' }), createAuthContext({ method: 'none', roles: [] })];
    for (const list of [first.roles, first.permissions, first.scopes, second.roles]) {
      expect(list).toEqual([]);
      expect(() => (list as string[]).push('x')).toThrow(TypeError);
    }
    expect(first.roles).toEqual([]);
  });

  it("carries the issuer's leeway outside the JSON; 0 when none is given", () => {
    const context = createAuthContext({ method: 'jwt', userId: 'u', claims: { auth_time: 1 }, leewaySeconds: 30 });
    expect(clockLeewayOf(context)).toBe(30);
    expect(JSON.stringify(context)).not.toContain('30');
    expect(context).toEqual(createAuthContext({ method: 'jwt', userId: 'u' }));
    expect(clockLeewayOf(createAuthContext({ method: 'api_key', userId: 'k' }))).toBe(0);
    expect(clockLeewayOf(createAuthContext({ method: 'jwt', leewaySeconds: 0 }))).toBe(0);
  });
});
