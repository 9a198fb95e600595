import { describe, expect, it } from '@jest/globals';
import { createAuthContext, verifiedClaims } from '../src/auth-context.js';
import { compileRouteKey } from '../src/config/access-schema.js';
import { ConfigError } from '../src/config/config-error.js';
import { isParsedAuthConfig, parseAuthConfig, withAccessDefaults } from '../src/config/parse-auth-config.js';
import { ForbiddenError, describeForbidden } from '../src/forbidden-error.js';

describe('withAccessDefaults', () => {
  it("adds the app's entries where the file has none of the same key; the file's own win", () => {
    const config = parseAuthConfig({ auth: {}, access: { 'GET /healthz': { roles: ['ops'] } } });
    const extended = withAccessDefaults(config, { 'GET /healthz': 'public', 'GET /readyz': 'public' });
    expect(extended.access).toEqual({
      'GET /healthz': { permissions: [], scopes: [], roles: ['ops'], any: [], modes: null, tenantParam: null },
      'GET /readyz': 'public',
    });
    expect(isParsedAuthConfig(extended)).toBe(true);
    expect(Object.isFrozen(extended.access)).toBe(true);
    expect(config.access).not.toHaveProperty('GET /readyz');
  });

  it('refuses an entry whose key is not "METHOD /pattern", naming it', () => {
    expect(() => withAccessDefaults(parseAuthConfig({ auth: {} }), { 'GET healthz': 'public' })).toThrow(ConfigError);
    expect(() => withAccessDefaults(parseAuthConfig({ auth: {} }), { 'GET /a/:': 'public' })).toThrow(
      /^access\.GET \/a\/:: Express cannot parse the pattern/,
    );
  });
});

describe('compileRouteKey', () => {
  it('matches as an app-level Express 5 route, and any number of trailing slashes', () => {
    const route = compileRouteKey('GET /tenants/:tenant{/*rest}');
    expect(route.params).toEqual(['tenant', 'rest']);
    expect(route.matchPath('/TENANTS/a%20b/')).toEqual({ tenant: 'a b' });
    expect(route.matchPath('/tenants/a/x/y')).toEqual({ tenant: 'a', rest: ['x', 'y'] });
    expect(compileRouteKey('GET /t/:tenant').matchPath('/t/a///')).toEqual({ tenant: 'a' });
    expect(route.matchPath('/tenant/a')).toBe(false);
    expect(() => route.matchPath('/tenants/%zz')).toThrow(URIError);
    expect(compileRouteKey('* {/*path}').matchPath('/')).toEqual({});
  });
});

describe('verifiedClaims', () => {
  it("gives the token's claims, outside the context's JSON and deep equality", () => {
    const claims = { sub: 'ada', org: { name: 'Acme' } };
    const context = createAuthContext({ method: 'jwt', userId: 'ada', claims });
    expect(verifiedClaims(context)).toEqual(claims);
    expect(verifiedClaims(context)).not.toBe(claims);
    expect(Object.isFrozen(verifiedClaims(context))).toBe(true);
    expect(JSON.parse(JSON.stringify(context))).toEqual(createAuthContext({ method: 'jwt', userId: 'ada' }));
    expect(context).toEqual(createAuthContext({ method: 'jwt', userId: 'ada' }));
  });

  it('keeps frozen claims as they are: nobody can change them, and no copy is made', () => {
    const claims = Object.freeze({ sub: 'ada', org: { name: 'Acme' } });
    const context = createAuthContext({ method: 'jwt', userId: 'ada', claims });
    expect(verifiedClaims(context)).toBe(claims);
  });

  it('is null for a context without claims, and for no context', () => {
    expect(verifiedClaims(createAuthContext({ method: 'api_key' }))).toBeNull();
    expect(verifiedClaims(undefined)).toBeNull();
    expect(verifiedClaims(null)).toBeNull();
  });
});

describe('ForbiddenError of the access table', () => {
  it.each([
    ['tenant_mismatch', "the resource belongs to another tenant than the caller's"],
    ['route_denied', 'this route is closed to every caller'],
  ] as const)('%s has a fixed sentence that repeats nothing of the request', (reason, sentence) => {
    expect(describeForbidden(reason, [])).toBe(sentence);
    expect(new ForbiddenError(reason, null, []).message).toBe(sentence);
  });
});
