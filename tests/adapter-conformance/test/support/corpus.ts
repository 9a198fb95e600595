import type { TestIdentityProvider } from '@authlayer/testkit';
import type { RouteSpec } from './adapters.js';

// The conformance corpus: one route list, one table and one case list that every adapter serves
// and answers alike (Express, Fastify and Hono: see ADAPTERS).

export const KEY = 'k3y-for-the-conformance-tests';

export const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/public' },
  { method: 'GET', path: '/me' },
  { method: 'GET', path: '/reports/:id' },
  { method: 'DELETE', path: '/reports/:id' },
  { method: 'POST', path: '/invoke' },
  { method: 'GET', path: '/other' },
  { method: 'GET', path: '/scoped' },
  { method: 'GET', path: '/t/:tenant/items' },
  { method: 'GET', path: '/gold' },
  { method: 'GET', path: '/stepped' },
  { method: 'GET', path: '/either' },
];

export const TABLE = {
  'GET /public': 'public',
  'GET /me': 'optional',
  'GET /reports/:id': { roles: ['admin'] },
  'DELETE /reports/:id': 'deny',
  'POST /invoke': 'authenticated',
  'GET /scoped': { scopes: ['reports:read'] },
  'GET /t/:tenant/items': { tenant_param: 'tenant' },
  'GET /gold': { claims: { 'org.tier': ['gold'] } },
  'GET /stepped': { acr: ['urn:mfa'], max_age: 300 },
  'GET /either': { any: [{ roles: ['admin'] }, { acr: ['urn:mfa'] }] },
};

export interface Case {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly headers?: (tokens: Tokens) => Record<string, string>;
}
export interface Tokens {
  readonly admin: string;
  readonly user: string;
  readonly expired: string;
  readonly tenant: string;
  readonly mfa: string;
  readonly stale: string;
  readonly gold: string;
}

export const apiKey = () => ({ 'X-API-Key': KEY });
export const bearer = (pick: keyof Tokens) => (tokens: Tokens) => ({ Authorization: `Bearer ${tokens[pick]}` });

export const CASES: readonly Case[] = [
  { name: 'no credential', method: 'POST', path: '/invoke' },
  { name: 'a wrong API key', method: 'POST', path: '/invoke', headers: () => ({ 'X-API-Key': 'wrong' }) },
  { name: 'the right API key', method: 'POST', path: '/invoke', headers: apiKey },
  {
    name: 'the API key as a Bearer token',
    method: 'POST',
    path: '/invoke',
    headers: () => ({ Authorization: `Bearer ${KEY}` }),
  },
  { name: 'a JWT', method: 'POST', path: '/invoke', headers: bearer('user') },
  { name: 'an expired JWT', method: 'POST', path: '/invoke', headers: bearer('expired') },
  { name: 'a role rule, API key without the role (403)', method: 'GET', path: '/reports/7', headers: apiKey },
  {
    name: 'a role rule, JWT without the role (403 with a challenge)',
    method: 'GET',
    path: '/reports/7',
    headers: bearer('user'),
  },
  { name: 'a role rule, JWT with the role', method: 'GET', path: '/reports/7', headers: bearer('admin') },
  { name: 'a role rule, HEAD as GET', method: 'HEAD', path: '/reports/7', headers: bearer('user') },
  { name: 'a role rule, no credential', method: 'GET', path: '/reports/7' },
  { name: 'a scope rule, JWT without the scope', method: 'GET', path: '/scoped', headers: bearer('user') },
  { name: 'a scope rule, JWT with the scope', method: 'GET', path: '/scoped', headers: bearer('admin') },
  { name: "tenant_param, the caller's tenant", method: 'GET', path: '/t/acme/items', headers: bearer('tenant') },
  { name: 'tenant_param, another tenant', method: 'GET', path: '/t/other/items', headers: bearer('tenant') },
  { name: 'deny, no credential', method: 'DELETE', path: '/reports/7' },
  { name: 'deny, the right key', method: 'DELETE', path: '/reports/7', headers: apiKey },
  { name: 'public, no credential', method: 'GET', path: '/public' },
  {
    name: 'public, a wrong key is not looked at',
    method: 'GET',
    path: '/public',
    headers: () => ({ 'X-API-Key': 'wrong' }),
  },
  { name: 'optional, no credential', method: 'GET', path: '/me' },
  { name: 'optional, a wrong key', method: 'GET', path: '/me', headers: () => ({ 'X-API-Key': 'wrong' }) },
  { name: 'optional, the right key', method: 'GET', path: '/me', headers: apiKey },
  { name: 'a route no key names: default, no credential', method: 'GET', path: '/other' },
  { name: 'a route no key names: default, the right key', method: 'GET', path: '/other', headers: apiKey },
  { name: 'a path no route serves: default, no credential', method: 'GET', path: '/nowhere' },
  { name: 'claims, the accepted value', method: 'GET', path: '/gold', headers: bearer('gold') },
  { name: 'claims, another value (403 claim_mismatch)', method: 'GET', path: '/gold', headers: bearer('tenant') },
  { name: 'claims, an API key has none', method: 'GET', path: '/gold', headers: apiKey },
  { name: 'step-up, acr and auth_time recent', method: 'GET', path: '/stepped', headers: bearer('mfa') },
  { name: 'step-up, auth_time too old (401)', method: 'GET', path: '/stepped', headers: bearer('stale') },
  { name: 'step-up, no acr (401)', method: 'GET', path: '/stepped', headers: bearer('user') },
  { name: 'step-up, an API key (401)', method: 'GET', path: '/stepped', headers: apiKey },
  { name: 'any with a step-up entry, taken', method: 'GET', path: '/either', headers: bearer('mfa') },
  { name: "any with a step-up entry, the first entry's 403", method: 'GET', path: '/either', headers: bearer('user') },
];

/** The tokens of the corpus, signed by `idp`, and the clock pinned once every one is signed. */
export async function signTokens(idp: TestIdentityProvider): Promise<{ tokens: Tokens; now: number }> {
  const at = Math.floor(Date.now() / 1000);
  const tokens: Tokens = {
    admin: await idp.signToken({ sub: 'ada', roles: ['admin'], scope: 'reports:read' }),
    user: await idp.signToken({ sub: 'bob', roles: ['reader'] }),
    expired: await idp.signToken({ sub: 'eve' }, { expiresIn: -3600 }),
    tenant: await idp.signToken({ sub: 'tia', tenant: 'acme', org: { tier: 'silver' } }),
    mfa: await idp.signToken({ sub: 'max', acr: 'urn:mfa', auth_time: at - 300 }),
    stale: await idp.signToken({ sub: 'sam', acr: 'urn:mfa', auth_time: at - 301 }),
    gold: await idp.signToken({ sub: 'gil', org: { tier: 'gold' } }),
  };
  // Pinned once every token is signed: max_age's boundary is exact on both adapters.
  return { tokens, now: at * 1000 + 999 };
}

/** API key and JWT together on `idp`, with the `tenant` claim, the table `access` and `extra` sections. */
export function configOf(idp: TestIdentityProvider, access: object, extra: object = {}) {
  const raw = idp.config('jwt', { auth: { jwt: { claims: { tenant_id: 'tenant' } } }, access, ...extra });
  const auth = raw.auth as Record<string, unknown>;
  return { ...raw, auth: { ...auth, mode: ['api_key', 'jwt'] } };
}
