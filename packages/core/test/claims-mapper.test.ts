import { describe, expect, it } from '@jest/globals';
import { createClaimsMapper, readClaim } from '../src/claims-mapper.js';
import type { ClaimsConfig } from '../src/config/auth-config.js';
import { DEFAULTS } from '../src/config/defaults.js';

const DEFAULT_CLAIMS: ClaimsConfig = { ...DEFAULTS.claims };
const KEYCLOAK: ClaimsConfig = {
  ...DEFAULT_CLAIMS,
  roles: 'realm_access.roles',
  tenantId: 'org.id',
  name: 'preferred_username',
};
const ROLES = [
  { name: 'admin', permissions: ['invoke', 'manage'] },
  { name: 'reader', permissions: ['read'] },
];

describe('createClaimsMapper with the default claims', () => {
  const map = createClaimsMapper('jwt', DEFAULT_CLAIMS, ROLES);

  it('maps every field of a full token', () => {
    expect(
      map({
        sub: 'user-1',
        email: 'ada@example.com',
        name: 'Ada Lovelace',
        roles: ['admin', 'ghost'],
        permissions: ['read', 'export'],
        scope: 'openid  profile\tinvoke',
        tenant_id: 'ignored-without-mapping',
      }),
    ).toEqual({
      method: 'jwt',
      userId: 'user-1',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      roles: ['admin', 'ghost'],
      permissions: ['read', 'export', 'invoke', 'manage'],
      scopes: ['openid', 'profile', 'invoke'],
      tenantId: null,
    });
  });

  it('fills null and empty lists for a token with no identity claims', () => {
    expect(map({})).toEqual({
      method: 'jwt',
      userId: null,
      email: null,
      name: null,
      roles: [],
      permissions: [],
      scopes: [],
      tenantId: null,
    });
  });

  it('takes one string as one role or permission, drops non-strings, takes a scope list as it is', () => {
    expect(
      map({ roles: 'reader', permissions: ['a', 1, null, '', { x: 1 }, 'b'], scope: ['x y', 'z', 3] }),
    ).toMatchObject({
      roles: ['reader'],
      permissions: ['a', 'b', 'read'],
      scopes: ['x y', 'z'],
    });
    expect(map({ roles: '', permissions: 7, scope: { read: true } })).toMatchObject({
      roles: [],
      permissions: [],
      scopes: [],
    });
  });

  it('drops the empty scopes that leading, trailing or repeated blanks leave', () => {
    expect(map({ scope: ' read  write\t' }).scopes).toEqual(['read', 'write']);
    expect(map({ scope: ' \t ' }).scopes).toEqual([]);
  });

  it('stringifies a safe-integer sub, and nulls any other non-string identity', () => {
    expect(map({ sub: 12345, email: 42, name: ['Ada'] })).toMatchObject({ userId: '12345', email: null, name: null });
    for (const sub of [1.5, 2 ** 60, true, { id: 'x' }, '', null]) expect(map({ sub }).userId).toBeNull();
  });
});

describe('createClaimsMapper for another mode', () => {
  it('gives the method it was built for, with the same mapping', () => {
    const map = createClaimsMapper('api_key', DEFAULT_CLAIMS, ROLES);
    expect(map({ sub: 'svc', roles: ['reader'] })).toEqual({
      method: 'api_key',
      userId: 'svc',
      email: null,
      name: null,
      roles: ['reader'],
      permissions: ['read'],
      scopes: [],
      tenantId: null,
    });
  });
});

describe('createClaimsMapper for one of several issuers', () => {
  it('names the issuer that vouched, last in the JSON', () => {
    const map = createClaimsMapper('jwt', DEFAULT_CLAIMS, ROLES, { issuer: 'https://b.example.com' });
    const context = map({ sub: 'alice', roles: ['admin'] });
    expect(context).toMatchObject({
      userId: 'alice',
      permissions: ['invoke', 'manage'],
      issuer: 'https://b.example.com',
    });
    expect(Object.keys(context).at(-1)).toBe('issuer');
    expect(Object.isFrozen(context)).toBe(true);
  });

  it('trustRoles: false lists the roles but gives them no permission; own permissions stay', () => {
    const map = createClaimsMapper('jwt', DEFAULT_CLAIMS, ROLES, { trustRoles: false });
    const context = map({ sub: 'alice', roles: ['admin'], permissions: ['read'] });
    expect(context).toMatchObject({ roles: ['admin'], permissions: ['read'] });
    expect(Object.keys(context)).not.toContain('issuer');
  });
});

describe('createClaimsMapper with a Keycloak-style mapping (dot paths)', () => {
  const map = createClaimsMapper('jwt', KEYCLOAK, ROLES);

  it('reads nested roles and tenant, and resolves role permissions', () => {
    expect(
      map({
        sub: 'f:1',
        preferred_username: 'ada',
        realm_access: { roles: ['reader', 'offline_access'] },
        org: { id: 42 },
        scope: 'profile email',
      }),
    ).toEqual({
      method: 'jwt',
      userId: 'f:1',
      email: null,
      name: 'ada',
      roles: ['reader', 'offline_access'],
      permissions: ['read'],
      scopes: ['profile', 'email'],
      tenantId: '42',
    });
  });

  it('gives nothing when a step of the path is missing or not an object', () => {
    expect(map({ realm_access: ['roles'], org: 'acme' })).toMatchObject({ roles: [], tenantId: null });
    expect(map({ realm_access: null, org: { id: { deep: 1 } } })).toMatchObject({ roles: [], tenantId: null });
  });
});

describe('readClaim', () => {
  it('prefers a top-level claim named by the whole path (namespaced claims)', () => {
    const payload = { 'https://example.com/roles': ['a'], 'a.b': 1, a: { b: 2 } };
    expect(readClaim(payload, 'https://example.com/roles')).toEqual(['a']);
    expect(readClaim(payload, 'a.b')).toBe(1);
    expect(readClaim({ a: { b: 2 } }, 'a.b')).toBe(2);
  });

  it('never walks into prototypes, arrays or class instances', () => {
    const payload = JSON.parse('{"__proto__": {"polluted": "yes"}, "list": ["x"], "o": {}}') as Record<string, unknown>;
    expect(readClaim(payload, '__proto__.polluted')).toBe('yes'); // an own JSON member, not Object.prototype
    expect(readClaim({}, '__proto__')).toBeUndefined();
    expect(readClaim({ o: {} }, 'o.constructor')).toBeUndefined();
    expect(readClaim({ o: {} }, 'o.toString')).toBeUndefined();
    expect(readClaim({}, 'constructor.name')).toBeUndefined();
    expect(readClaim(payload, 'list.0')).toBeUndefined();
    expect(readClaim(payload, 'list.length')).toBeUndefined();
    expect(readClaim({ d: new Date(0) }, 'd.getTime')).toBeUndefined();
    expect(readClaim({ n: Object.create(null) as object }, 'n.x')).toBeUndefined();
    const bare = Object.assign(Object.create(null) as object, { x: 'ok' });
    expect(readClaim({ n: bare }, 'n.x')).toBe('ok');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
