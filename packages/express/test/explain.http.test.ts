import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, type AuthDecision, type AuthMiddleware } from '../src/index.js';

// auth.explain(req) on real requests with real credentials (an API key from env, JWTs of the
// testkit's identity provider verified against its JWKS): every key that applied, its verdict and
// the field that decided, then the answer; never the request's decision, never a change to it.
const KEY = 'k3y-for-the-explain-tests';
const TABLE = {
  'GET /reports/:id': { roles: ['admin'] },
  '* /reports/:id': { scopes: ['reports:read'] },
  'DELETE /reports/:id': 'deny',
  'GET /t/:tenant/items': { tenant_param: 'tenant' },
  'GET /status': 'public',
};

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterAll(async () => idp.close());

/** An app that answers `auth.explain(req)` for a request with `X-Explain`, before `auth.access`. */
async function explainingApp(extra: object = {}) {
  const raw = idp.config('jwt', { auth: { jwt: { claims: { tenant_id: 'tenant' } } }, access: TABLE, ...extra });
  const config = { ...raw, auth: { ...(raw.auth as object), mode: ['api_key', 'jwt'] } };
  const decisions: AuthDecision[] = [];
  const auth = await createAuthMiddleware(config, {
    env: { ...idp.env, SERVICE_API_KEY: KEY },
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  const app = express();
  app.use((req, res, next) => {
    if (req.headers['x-explain'] === undefined) return next();
    auth.explain(req).then((verdict) => res.json({ verdict, auth: req.auth ?? null }), next);
  });
  app.use(auth.access);
  app.all('/{*any}', (req, res) => res.json({ by: req.auth?.userId ?? null }));
  return { app, auth, decisions };
}

async function explain(app: express.Express, method: string, path: string, headers: Record<string, string>) {
  const res = await request(app)
    [method.toLowerCase() as 'get'](path)
    .set({ ...headers, 'X-Explain': '1' });
  expect(res.status).toBe(200);
  return res.body as { verdict: Awaited<ReturnType<AuthMiddleware['explain']>>; auth: unknown };
}

describe('auth.explain(req) on Express', () => {
  it('a verified JWT: every key that applied, in order, the field that decided, then the answer', async () => {
    const { app } = await explainingApp();
    const token = await idp.signToken({ sub: 'bob', roles: ['reader'], scope: 'reports:read' });
    const { verdict } = await explain(app, 'GET', '/reports/7', { Authorization: `Bearer ${token}` });
    expect(verdict).toMatchObject({
      status: 403,
      reason: 'role_missing',
      key: 'GET /reports/:id',
      trace: [
        { key: 'GET /reports/:id', verdict: 'refuse', field: 'roles', reason: 'role_missing' },
        { key: '* /reports/:id', verdict: 'allow', field: 'scopes', reason: null },
      ],
    });
  });

  it('an expired token: the 401 with its challenge; a denied route: deny decides', async () => {
    const { app } = await explainingApp();
    const expired = await idp.signToken({ sub: 'eve' }, { expiresIn: -3600 });
    const refused = await explain(app, 'GET', '/reports/7', { Authorization: `Bearer ${expired}` });
    expect(refused.verdict).toMatchObject({ status: 401, reason: 'token_expired' });
    expect(refused.verdict.challenge).toContain('error="invalid_token"');
    expect(refused.verdict.trace[0]).toMatchObject({ verdict: 'refuse', field: 'authentication' });

    const denied = await explain(app, 'DELETE', '/reports/7', { 'X-API-Key': KEY });
    expect(denied.verdict).toMatchObject({ status: 403, reason: 'route_denied', key: 'DELETE /reports/:id' });
    expect(denied.verdict.trace).toEqual([
      { key: '* /reports/:id', verdict: 'refuse', field: 'scopes', reason: 'scope_missing' },
      { key: 'DELETE /reports/:id', verdict: 'refuse', field: 'deny', reason: 'route_denied' },
    ]);
  });

  it('tenant_param and the default: the field that decided', async () => {
    const { app } = await explainingApp();
    const token = await idp.signToken({ sub: 'tia', tenant: 'acme' });
    const other = await explain(app, 'GET', '/t/other/items', { Authorization: `Bearer ${token}` });
    expect(other.verdict).toMatchObject({ status: 403, reason: 'tenant_mismatch' });
    expect(other.verdict.trace).toEqual([
      { key: 'GET /t/:tenant/items', verdict: 'refuse', field: 'tenant_param', reason: 'tenant_mismatch' },
    ]);
    const own = await explain(app, 'GET', '/t/acme/items', { Authorization: `Bearer ${token}` });
    expect(own.verdict).toMatchObject({ status: 200, reason: null, challenge: null, key: null });
    const nowhere = await explain(app, 'GET', '/nowhere', {});
    expect(nowhere.verdict).toMatchObject({ status: 401, reason: 'credentials_missing' });
    expect(nowhere.verdict.trace).toEqual([
      { key: 'default', verdict: 'refuse', field: 'default', reason: 'credentials_missing' },
    ]);
  });

  it('is not the decision: no onDecision, no rate limit counted, req.auth left unset', async () => {
    const { app, decisions } = await explainingApp({ rate_limit: { failed_auth_per_minute: 1 } });
    for (let i = 0; i < 3; i += 1) {
      const { verdict, auth } = await explain(app, 'GET', '/reports/7', { 'X-API-Key': 'wrong' });
      expect([verdict.status, verdict.reason, auth]).toEqual([401, 'credentials_invalid', null]);
    }
    expect(decisions).toEqual([]);
    // The failed-auth limit never counted the explained wrong keys: the real request is its first.
    await request(app).get('/reports/7').set('X-API-Key', 'wrong').expect(401);
    expect(decisions.map((decision) => decision.reason)).toEqual(['credentials_invalid']);
  });

  it('in a route after auth.access: the request keeps its own decision and req.auth', async () => {
    const { auth, decisions } = await explainingApp();
    const app = express();
    app.use(auth.access);
    app.get('/t/:tenant/items', async (req, res) => {
      const before = req.auth;
      const verdict = await auth.explain(req);
      res.json({ same: req.auth === before, status: verdict.status, trace: verdict.trace.length });
    });
    const token = await idp.signToken({ sub: 'tia', tenant: 'acme' });
    const res = await request(app).get('/t/acme/items').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body).toEqual({ same: true, status: 200, trace: 1 });
    expect(decisions.map((decision) => [decision.outcome, decision.userId])).toEqual([['allowed', 'tia']]);
  });
});
