import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createCaptureLogger, OIDC_RESOURCE, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import { verifiedClaims } from '@authlayer/core';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { rawPost } from './raw-post.js';
import {
  authenticated,
  createAuthMiddleware,
  requireRoles,
  type AuthDecision,
  type AuthMiddleware,
} from '../src/index.js';

// `app.use(auth.access)` and the `access` table as the app's whole policy: each value and field of
// a rule, overlapping rules, default, report_only, decisions. API keys carry the identities here
// (names, roles, tenants); modes and tenant_param with JWTs come from a real OpenID provider below.

const KEYS = {
  admin: 'admin-key-0123456789abcdef',
  auditor: 'auditor-key-0123456789abcdef',
  plain: 'plain-key-0123456789abcdef',
};
const env = { ADMIN_KEY: KEYS.admin, AUDITOR_KEY: KEYS.auditor, PLAIN_KEY: KEYS.plain };
const apiKeys = {
  keys: [
    { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'], tenant_id: 'acme' },
    { name: 'auditor', env_var: 'AUDITOR_KEY', roles: ['auditor'], tenant_id: 'globex' },
    { name: 'plain', env_var: 'PLAIN_KEY' },
  ],
};
const roles = [
  { name: 'admin', permissions: ['invoke', 'invoices:read'] },
  { name: 'auditor', permissions: ['invoices:read'] },
];

const echo: RequestHandler = (req, res) => res.json({ auth: req.auth ?? null, params: req.params });

async function appWith(access: object, options: { decisions?: AuthDecision[] } = {}) {
  const decisions = options.decisions ?? [];
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key', api_keys: apiKeys }, roles, access },
    { env, logger: createCaptureLogger(), onDecision: (decision) => decisions.push(decision) },
  );
  const app = express();
  app.use(auth.access);
  app.post('/invoke', echo);
  app.get('/reports/:id', echo);
  app.delete('/users/:id', echo);
  app.get('/tenants/:tenant/invoices', echo);
  app.get('/me', echo);
  app.get('/status', echo);
  app.all('/internal/*path', echo);
  app.get('/other', echo);
  return { app, auth, decisions };
}

const TABLE = {
  'POST /invoke': { permissions: ['invoke'] },
  'GET /reports/:id': { any: [{ scopes: ['reports:read'] }, { roles: ['auditor'] }] },
  'DELETE /users/:id': { roles: ['admin'] },
  'GET /tenants/:tenant/invoices': { permissions: ['invoices:read'], tenant_param: 'tenant' },
  'GET /me': 'optional',
  'GET /status': 'public',
  '* /internal/*path': 'deny',
};

describe('auth.access: each value of the table', () => {
  let app: express.Express;
  let decisions: AuthDecision[];
  beforeAll(async () => {
    ({ app, decisions } = await appWith(TABLE));
  });

  it('public: no authentication at all, req.auth unset, even with a wrong credential', async () => {
    expect((await request(app).get('/status').expect(200)).body.auth).toBeNull();
    expect((await request(app).get('/status').set('X-API-Key', 'wrong').expect(200)).body.auth).toBeNull();
  });

  it('optional: anonymous allowed, a wrong credential still 401, a right one authenticated', async () => {
    expect((await request(app).get('/me').expect(200)).body.auth).toMatchObject({ method: 'none', userId: null });
    await request(app).get('/me').set('X-API-Key', 'wrong').expect(401);
    expect((await request(app).get('/me').set('X-API-Key', KEYS.plain).expect(200)).body.auth.userId).toBe('plain');
  });

  it('deny: 403 route_denied to everyone, before any credential is looked at', async () => {
    decisions.length = 0;
    const res = await request(app).post('/internal/x/y').set('X-API-Key', KEYS.admin).expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'this route is closed to every caller' });
    await request(app).get('/INTERNAL/x').expect(403);
    expect(decisions).toMatchObject([
      { outcome: 'forbidden', reason: 'route_denied', userId: null },
      { outcome: 'forbidden', reason: 'route_denied', userId: null },
    ]);
  });

  it('default authenticated: a route without an entry needs any authenticated caller', async () => {
    await request(app).get('/other').expect(401);
    expect((await request(app).get('/other').set('X-API-Key', KEYS.plain).expect(200)).body.auth.userId).toBe('plain');
  });

  it('permissions: every name needed; 403 permission_missing with a decision naming the caller', async () => {
    decisions.length = 0;
    await request(app).post('/invoke').set('X-API-Key', KEYS.admin).expect(200);
    const res = await request(app).post('/invoke').set('X-API-Key', KEYS.auditor).expect(403);
    expect(res.body.message).toBe('the permission invoke is required');
    expect(decisions.map(({ outcome, reason, userId }) => ({ outcome, reason, userId }))).toEqual([
      { outcome: 'allowed', reason: null, userId: 'admin' },
      { outcome: 'forbidden', reason: 'permission_missing', userId: 'auditor' },
    ]);
  });

  it('roles, on every spelling of the path and HEAD; params reach the handler', async () => {
    const res = await request(app).delete('/users/42').set('X-API-Key', KEYS.admin).expect(200);
    expect(res.body.params).toEqual({ id: '42' });
    for (const path of ['/users/42', '/USERS/42', '/users/42/', '/Users/4%32']) {
      await request(app).delete(path).set('X-API-Key', KEYS.plain).expect(403);
    }
  });

  it("any: one entry is enough; none holding → the first entry's refusal (with the Bearer challenge)", async () => {
    await request(app).get('/reports/1').set('X-API-Key', KEYS.auditor).expect(200);
    await request(app).head('/reports/1').set('X-API-Key', KEYS.auditor).expect(200);
    const refused = await request(app).get('/reports/1').set('Authorization', `Bearer ${KEYS.plain}`).expect(403);
    expect(refused.body.message).toBe('the scope reports:read is required');
    expect(refused.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="insufficient_scope", error_description="the scope reports:read is required", scope="reports:read"',
    );
    await request(app).head('/reports/1').set('X-API-Key', KEYS.plain).expect(403);
  });

  it("tenant_param: the parameter must equal the caller's tenant, exactly; a null tenant never matches", async () => {
    await request(app).get('/tenants/acme/invoices').set('X-API-Key', KEYS.admin).expect(200);
    await request(app).get('/tenants/ac%6De/invoices').set('X-API-Key', KEYS.admin).expect(200);
    const res = await request(app).get('/tenants/globex/invoices').set('X-API-Key', KEYS.admin).expect(403);
    expect(res.body).toEqual({
      error: 'forbidden',
      message: "the resource belongs to another tenant than the caller's",
    });
    await request(app).get('/tenants/ACME/invoices').set('X-API-Key', KEYS.admin).expect(403);
    await request(app).get('/tenants/globex/invoices').set('X-API-Key', KEYS.auditor).expect(200);
    // The plain client has no tenant: refused for its missing permission first, and a rule with
    // only tenant_param refuses it too (below).
    await request(app).get('/tenants/acme/invoices').set('X-API-Key', KEYS.plain).expect(403);
  });

  it('a 403 of the table never invites an upload: an upload still on its way closes the connection', async () => {
    const auditor = { 'X-API-Key': KEYS.auditor };
    expect(await rawPost(app, '/invoke', auditor, true)).toEqual({ status: 403, connection: 'close' });
  });
});

describe('auth.access: overlapping rules, default and report_only', () => {
  it('every matching entry applies, whatever the order; the strongest authentication wins', async () => {
    const { app } = await appWith({
      'GET /reports/:id': { roles: ['auditor'] },
      'GET /reports/*rest': { permissions: ['invoices:read'] },
      'GET /status': 'public',
      '* /status': 'authenticated',
      'GET /me': 'optional',
      '* /me': { permissions: ['invoke'] },
    });
    await request(app).get('/reports/1').set('X-API-Key', KEYS.auditor).expect(200);
    await request(app).get('/reports/1').set('X-API-Key', KEYS.admin).expect(403); // holds the permission, not the role
    await request(app).get('/status').expect(401);
    await request(app).get('/me').expect(401);
    await request(app).get('/me').set('X-API-Key', KEYS.auditor).expect(403);
  });

  it('default: deny refuses what no entry matches, without authenticating', async () => {
    const decisions: AuthDecision[] = [];
    const { app } = await appWith(
      { default: 'deny', 'GET /status': 'public', 'POST /invoke': 'authenticated' },
      { decisions },
    );
    await request(app).get('/other').set('X-API-Key', KEYS.admin).expect(403);
    await request(app).get('/nowhere').expect(403);
    await request(app).get('/status').expect(200);
    await request(app).post('/invoke').set('X-API-Key', KEYS.plain).expect(200);
    expect(decisions.map((decision) => decision.reason)).toEqual(['route_denied', 'route_denied', null]);
  });

  it('report_only: nothing a rule or default: deny would refuse is refused; it is reported as would_refuse', async () => {
    const decisions: AuthDecision[] = [];
    const { app } = await appWith({ ...TABLE, default: 'deny', report_only: true }, { decisions });
    await request(app).post('/invoke').set('X-API-Key', KEYS.auditor).expect(200);
    await request(app).get('/internal/x').expect(200);
    await request(app).get('/other').set('X-API-Key', KEYS.plain).expect(200);
    await request(app).get('/tenants/globex/invoices').set('X-API-Key', KEYS.admin).expect(200);
    await request(app).post('/invoke').set('X-API-Key', KEYS.admin).expect(200);
    // Failed authentication is still 401.
    await request(app).post('/invoke').set('X-API-Key', 'wrong').expect(401);
    await request(app).post('/invoke').expect(401);
    expect(decisions.map(({ outcome, reason }) => `${outcome} ${reason}`)).toEqual([
      'would_refuse permission_missing',
      'would_refuse route_denied',
      'would_refuse route_denied',
      'would_refuse tenant_mismatch',
      'allowed null',
      'refused credentials_invalid',
      'refused credentials_missing',
    ]);
  });
});

describe('report_only in an app that passes no onDecision', () => {
  it("logs each would_refuse and a guard's forbidden decision: one line, the route's key and the reason, no credential", async () => {
    const logger = createCaptureLogger();
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key', api_keys: apiKeys }, roles, access: { ...TABLE, default: 'deny', report_only: true } },
      { env, logger },
    );
    const app = express();
    app.use(auth.access);
    app.post('/invoke', echo);
    app.get('/reports/:id', requireRoles('admin'), echo);
    await request(app).post('/invoke').set('X-API-Key', KEYS.auditor).expect(200);
    await request(app).get('/other').set('X-API-Key', KEYS.plain).expect(404);
    await request(app).get('/reports/1').set('X-API-Key', KEYS.auditor).expect(403);
    await request(app).post('/invoke').set('X-API-Key', KEYS.admin).expect(200);
    expect(logger.text).toEqual([
      'warn: access report_only: would_refuse POST /invoke (permission_missing)',
      'warn: access report_only: would_refuse default (route_denied)',
      'warn: access report_only: forbidden GET /reports/:id (role_missing)',
    ]);
    expect(logger.text.join()).not.toMatch(/key-0123/);
  });
});

describe('auth.unmatchedRules', () => {
  it('lists the keys that match no registered route, and none for keys that do', async () => {
    const { app, auth } = await appWith({
      ...TABLE,
      'GET /report': { permissions: ['invoke'] },
      'PUT /invoke': 'deny',
      'GET /reports/:id/': 'authenticated',
      'HEAD /reports/:x': 'authenticated',
    });
    expect(auth.unmatchedRules(app)).toEqual(['GET /report', 'PUT /invoke']);
    expect(auth.unmatchedRules(express())).toHaveLength(11);
  });
});

describe('auth.access with JWTs from a real OpenID provider, and modes', () => {
  let provider: OidcProvider;
  let auth: AuthMiddleware;
  let app: express.Express;
  beforeAll(async () => {
    // oidc-provider warns that its in-memory adapter is for development only: true, and fine here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    provider = await startOidcProvider('ES256', 'access-key', {
      id: 'globex-job',
      scope: 'read',
      claims: { org: { id: 'globex' }, realm_access: { roles: ['auditor'] } },
    });
    warn.mockRestore();
    auth = await createAuthMiddleware(
      {
        auth: {
          mode: ['api_key', 'jwt'],
          api_keys: apiKeys,
          jwt: {
            jwks_url: provider.jwksUri,
            issuer: provider.issuer,
            audience: OIDC_RESOURCE,
            algorithms: ['ES256'],
            claims: { roles: 'realm_access.roles', tenant_id: 'org.id' },
          },
        },
        roles,
        access: {
          'GET /tenants/:tenant/invoices': { tenant_param: 'tenant', modes: ['jwt'] },
          'DELETE /users/:id': { roles: ['admin'], modes: ['api_key'] },
          'GET /reports/:id': { scopes: ['read'] },
        },
      },
      { env, logger: createCaptureLogger() },
    );
    app = express();
    app.use(auth.access);
    app.get('/tenants/:tenant/invoices', echo);
    app.delete('/users/:id', echo);
    app.get('/reports/:id', echo);
    app.get('/claims', (req, res) => res.json({ claims: verifiedClaims(req.auth), json: JSON.stringify(req.auth) }));
  });
  afterAll(async () => {
    await provider.close();
  });

  it('gives handlers the verified claims, outside the AuthContext JSON; none for an API key', async () => {
    const token = await provider.obtainToken();
    const res = await request(app).get('/claims').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body.claims).toMatchObject({ iss: provider.issuer, aud: OIDC_RESOURCE, org: { id: 'acme' } });
    expect(Object.keys(JSON.parse(res.body.json))).toEqual([
      'method',
      'userId',
      'email',
      'name',
      'roles',
      'permissions',
      'scopes',
      'tenantId',
    ]);
    const cached = await request(app).get('/claims').set('Authorization', `Bearer ${token}`).expect(200);
    expect(cached.body.claims).toEqual(res.body.claims);
    expect((await request(app).get('/claims').set('X-API-Key', KEYS.admin).expect(200)).body.claims).toBeNull();
  });

  it("tenant_param with the tenant claim of a real provider's token", async () => {
    const token = await provider.obtainToken(); // org.id: acme
    const res = await request(app).get('/tenants/acme/invoices').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body.auth).toMatchObject({ method: 'jwt', tenantId: 'acme' });
    await request(app).get('/tenants/globex/invoices').set('Authorization', `Bearer ${token}`).expect(403);
    const globex = await provider.obtainToken('globex-job');
    await request(app).get('/tenants/globex/invoices').set('Authorization', `Bearer ${globex}`).expect(200);
    await request(app).get('/tenants/acme/invoices').set('Authorization', `Bearer ${globex}`).expect(403);
  });

  it('modes: a credential of another mode gets the 401 of a request with no credential for the route', async () => {
    const jwtOnly = await request(app).get('/tenants/acme/invoices').set('X-API-Key', KEYS.admin).expect(401);
    const none = await request(app).get('/tenants/acme/invoices').expect(401);
    expect(jwtOnly.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
    expect(jwtOnly.headers['www-authenticate']).toBe(none.headers['www-authenticate']);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="authlayer"');

    const token = await provider.obtainToken();
    const keyOnly = await request(app).delete('/users/1').set('Authorization', `Bearer ${token}`).expect(401);
    expect(keyOnly.body.message).toBe('no credentials were sent');
    expect(keyOnly.headers['www-authenticate']).toMatch(/^ApiKey realm="authlayer", header="X-API-Key"/);
    await request(app).delete('/users/1').set('X-API-Key', KEYS.admin).expect(200);
  });

  it('a route without modes takes either mode', async () => {
    const token = await provider.obtainToken('globex-job');
    await request(app).get('/reports/1').set('Authorization', `Bearer ${token}`).expect(200);
    await request(app).get('/reports/1').set('X-API-Key', KEYS.admin).expect(403);
  });
});

describe('auth.access fails closed', () => {
  it('refuses every request of a modes rule whose packages are all missing', async () => {
    const auth = await createAuthMiddleware(
      {
        auth: { mode: ['api_key', 'jwt'], api_keys: apiKeys, jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } },
        access: { 'GET /x': { modes: ['jwt'] } },
      },
      {
        env,
        logger: createCaptureLogger(),
        importModule: async (name) => {
          if (name === '@authlayer/jwt') {
            throw Object.assign(new Error(`Cannot find package '${name}' imported from here`), {
              code: 'ERR_MODULE_NOT_FOUND',
            });
          }
          return import(name);
        },
      },
    );
    const app = express();
    app.use(auth.access);
    app.get('/x', echo);
    await request(app).get('/x').set('X-API-Key', KEYS.admin).expect(401);
  });
});

describe('authenticated(handler)', () => {
  it('runs the handler with req.auth set, and answers 401 instead when nothing authenticated the request', async () => {
    const { app } = await appWith({});
    const plain = express();
    const handler = authenticated((req, res) => res.json({ userId: req.auth.userId }));
    app.get('/typed', handler);
    plain.get('/typed', handler);
    expect((await request(app).get('/typed').set('X-API-Key', KEYS.plain).expect(200)).body).toEqual({
      userId: 'plain',
    });
    await request(plain).get('/typed').expect(401, { error: 'unauthorized', message: 'no credentials were sent' });
  });
});
