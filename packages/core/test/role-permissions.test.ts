import { describe, expect, it } from '@jest/globals';
import { createPermissionResolver } from '../src/role-permissions.js';

const resolve = createPermissionResolver([
  { name: 'admin', permissions: ['invoke', 'manage'] },
  { name: 'user', permissions: ['invoke', 'read'] },
  { name: 'empty', permissions: [] },
]);

describe('createPermissionResolver', () => {
  it.each<[string, string[], string[], string[]]>([
    ['no roles, no own permissions', [], [], []],
    ['own permissions only', [], ['read', 'write'], ['read', 'write']],
    ['one role', ['admin'], [], ['invoke', 'manage']],
    ['own first, then each role in order', ['user', 'admin'], ['write'], ['write', 'invoke', 'read', 'manage']],
    ['the union without duplicates', ['admin', 'user'], ['read', 'invoke'], ['read', 'invoke', 'manage']],
    ['duplicate own permissions', [], ['a', 'a', 'b'], ['a', 'b']],
    ['a repeated role', ['admin', 'admin'], [], ['invoke', 'manage']],
    ['unknown roles adding nothing', ['root', 'Admin', 'admin '], ['x'], ['x']],
    ['a role without permissions', ['empty'], [], []],
  ])('gives %s', (_name, roles, own, expected) => {
    expect(resolve(roles, own)).toEqual(expected);
  });

  it('gives nothing when no roles are configured', () => {
    expect(createPermissionResolver([])(['admin'], [])).toEqual([]);
  });

  it('does not change its inputs and returns a new list each time', () => {
    const own = ['read'];
    const first = resolve(['admin'], own);
    first.push('tampered');
    expect(own).toEqual(['read']);
    expect(resolve(['admin'], own)).toEqual(['read', 'invoke', 'manage']);
  });

  it('ignores object prototype names as roles', () => {
    expect(resolve(['constructor', '__proto__', 'toString'], [])).toEqual([]);
  });
});
