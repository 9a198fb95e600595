import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { call } from './support/call.js';
import authlayer, { type AuthDecision, type PolicyVerdict } from '../src/index.js';

// app.authlayer.explain(request) on real requests with real credentials (an API key from env, JWTs
// of the testkit's identity provider verified against its JWKS), for the route Fastify chose:
// every key that applied, its verdict and the field that decided, then the answer; never the
// request's decision, never a change to it.
const KEY = 'k3y-for-the-explain-tests';
const TABLE = {
  'GET /reports/:id': { roles: ['admin'] },
  '* /reports/:id': { scopes: ['reports:read'] },
  'DELETE /reports/:id': 'deny',
  'GET /t/:tenant/items': { tenant_param: 'tenant' },
};

let idp: TestIdentityProvider;
const opened: FastifyInstance[] = [];
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});
afterAll(async () => idp.close());

/** An app whose first hook answers `explain(request)` for a request with `X-Explain`. */
async function explainingApp(extra: object = {}) {
  const raw = idp.config('jwt', { auth: { jwt: { claims: { tenant_id: 'tenant' } } }, access: TABLE, ...extra });
  const config = { ...raw, auth: { ...(raw.auth as object), mode: ['api_key', 'jwt'] } };
  const decisions: AuthDecision[] = [];
  const app = Fastify();
  opened.push(app);
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers['x-explain'] === undefined) return;
    const verdict = await app.authlayer.explain(request);
    return reply.send({ verdict, auth: request.auth ?? null });
  });
  await app.register(authlayer, {
    config,
    env: { ...idp.env, SERVICE_API_KEY: KEY },
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  const answer = async () => ({ ok: true });
  app.get('/reports/:id', answer);
  app.delete('/reports/:id', answer);
  app.get('/t/:tenant/items', async (request) => {
    const before = request.auth;
    const verdict = await app.authlayer.explain(request);
    return { same: request.auth === before, status: verdict.status, trace: verdict.trace.length };
  });
  return { app, decisions };
}

async function explain(app: FastifyInstance, method: string, url: string, headers: Record<string, string>) {
  const res = await call(app, { method, url, headers: { ...headers, 'x-explain': '1' } });
  expect(res.statusCode).toBe(200);
  return res.json() as { verdict: PolicyVerdict; auth: unknown };
}

describe('app.authlayer.explain(request) on Fastify', () => {
  it('a verified JWT: every key that names the route, in order, the field that decided, then the answer', async () => {
    const { app } = await explainingApp();
    const token = await idp.signToken({ sub: 'bob', roles: ['reader'], scope: 'reports:read' });
    const { verdict } = await explain(app, 'GET', '/reports/7', { authorization: `Bearer ${token}` });
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
    const refused = await explain(app, 'GET', '/reports/7', { authorization: `Bearer ${expired}` });
    expect(refused.verdict).toMatchObject({ status: 401, reason: 'token_expired' });
    expect(refused.verdict.challenge).toContain('error="invalid_token"');
    const denied = await explain(app, 'DELETE', '/reports/7', { 'x-api-key': KEY });
    expect(denied.verdict).toMatchObject({ status: 403, reason: 'route_denied', key: 'DELETE /reports/:id' });
    expect(denied.verdict.trace).toEqual([
      { key: '* /reports/:id', verdict: 'refuse', field: 'scopes', reason: 'scope_missing' },
      { key: 'DELETE /reports/:id', verdict: 'refuse', field: 'deny', reason: 'route_denied' },
    ]);
  });

  it("tenant_param with the route's own parameters; a path no route serves: the default", async () => {
    const { app } = await explainingApp();
    const token = await idp.signToken({ sub: 'tia', tenant: 'acme' });
    const other = await explain(app, 'GET', '/t/other/items', { authorization: `Bearer ${token}` });
    expect(other.verdict.trace).toEqual([
      { key: 'GET /t/:tenant/items', verdict: 'refuse', field: 'tenant_param', reason: 'tenant_mismatch' },
    ]);
    expect(other.verdict).toMatchObject({ status: 403, reason: 'tenant_mismatch' });
    const nowhere = await explain(app, 'GET', '/nowhere', {});
    expect(nowhere.verdict.trace).toEqual([
      { key: 'default', verdict: 'refuse', field: 'default', reason: 'credentials_missing' },
    ]);
  });

  it('is not the decision: no onDecision, no rate limit counted, request.auth left unset', async () => {
    const { app, decisions } = await explainingApp({ rate_limit: { failed_auth_per_minute: 1 } });
    for (let i = 0; i < 3; i += 1) {
      const { verdict, auth } = await explain(app, 'GET', '/reports/7', { 'x-api-key': 'wrong' });
      expect([verdict.status, verdict.reason, auth]).toEqual([401, 'credentials_invalid', null]);
    }
    expect(decisions).toEqual([]);
    expect((await call(app, { method: 'GET', url: '/reports/7', headers: { 'x-api-key': 'wrong' } })).statusCode).toBe(
      401,
    );
    expect(decisions.map((decision) => decision.reason)).toEqual(['credentials_invalid']);
  });

  it('in a route handler: the request keeps its own decision and request.auth', async () => {
    const { app, decisions } = await explainingApp();
    const token = await idp.signToken({ sub: 'tia', tenant: 'acme' });
    const res = await call(app, { method: 'GET', url: '/t/acme/items', headers: { authorization: `Bearer ${token}` } });
    expect([res.statusCode, res.json()]).toEqual([200, { same: true, status: 200, trace: 1 }]);
    expect(decisions.map((decision) => [decision.outcome, decision.userId])).toEqual([['allowed', 'tia']]);
  });
});
