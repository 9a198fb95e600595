import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import type { Context } from 'hono';
import type { AuthDecision } from '../src/index.js';
import { serveHono, type ServedHono } from './support/serve.js';

const KEY = 'k3y-for-the-hono-tests';
let idp: TestIdentityProvider;
const opened: ServedHono[] = [];
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterAll(async () => idp.close());
afterEach(async () => {
  await Promise.all(opened.splice(0).map((served) => served.close()));
});

const TABLE = {
  'GET /public': 'public',
  'POST /invoke': 'authenticated',
  'GET /reports/:id': { roles: ['admin'] },
  'DELETE /reports/:id': 'deny',
};

/** API key and JWT together, the table above, and routes that answer the caller. */
async function served(access: object = TABLE, guard?: object) {
  const decisions: AuthDecision[] = [];
  const raw = idp.config('jwt', { access });
  const config = { ...raw, auth: { ...(raw.auth as object), mode: ['api_key', 'jwt'] } };
  const logger = createCaptureLogger();
  const app = await serveHono(
    { config, env: { ...idp.env, SERVICE_API_KEY: KEY }, logger, onDecision: (d) => decisions.push(d) },
    (app, auth) => {
      const answer = (c: Context) => c.json({ auth: c.get('auth') ?? null });
      app.get('/public', answer);
      if (guard === undefined) app.post('/invoke', answer);
      else app.post('/invoke', auth.requireAccess(guard), answer);
      app.get('/reports/:id', answer);
      app.delete('/reports/:id', answer);
      app.get('/other', answer);
    },
  );
  opened.push(app);
  return { ...app, decisions, logger };
}

async function send(base: string, method: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, { method, headers });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    type: res.headers.get('content-type'),
    body: await res.text(),
  };
}

describe('the table on the route Hono matched', () => {
  it('an API key and a JWT pass an authenticated route; none gets the 401 body and challenge', async () => {
    const { url, decisions } = await served();
    const none = await send(url, 'POST', '/invoke');
    expect(none).toEqual({
      status: 401,
      challenge: 'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
      type: 'application/json; charset=utf-8',
      body: '{"error":"unauthorized","message":"no credentials were sent"}',
    });
    const byKey = await send(url, 'POST', '/invoke', { 'X-API-Key': KEY });
    expect(byKey.status).toBe(200);
    expect(JSON.parse(byKey.body)).toMatchObject({ auth: { method: 'api_key', userId: 'SERVICE_API_KEY' } });
    const token = await idp.signToken({ sub: 'ada', roles: ['admin'] });
    const byJwt = await send(url, 'POST', '/invoke', { Authorization: `Bearer ${token}` });
    expect(JSON.parse(byJwt.body)).toMatchObject({ auth: { method: 'jwt', userId: 'ada' } });
    expect(decisions.map((d) => d.outcome)).toEqual(['refused', 'allowed', 'allowed']);
  });

  it('public passes without a look at the credential; deny refuses the right key', async () => {
    const { url } = await served();
    expect(await send(url, 'GET', '/public', { 'X-API-Key': 'wrong' })).toMatchObject({
      status: 200,
      body: '{"auth":null}',
    });
    const denied = await send(url, 'DELETE', '/reports/7', { 'X-API-Key': KEY });
    expect(denied.status).toBe(403);
  });

  it('roles: a JWT without the role is 403, with it 200, and HEAD is judged as GET', async () => {
    const { url } = await served();
    const reader = await idp.signToken({ sub: 'bob', roles: ['reader'] });
    const admin = await idp.signToken({ sub: 'ada', roles: ['admin'] });
    const refused = await send(url, 'GET', '/reports/7', { Authorization: `Bearer ${reader}` });
    expect(refused.status).toBe(403);
    expect(refused.challenge).toContain('error="insufficient_scope"');
    expect((await send(url, 'HEAD', '/reports/7', { Authorization: `Bearer ${reader}` })).status).toBe(403);
    expect((await send(url, 'GET', '/reports/7', { Authorization: `Bearer ${admin}` })).status).toBe(200);
  });

  it('access.default decides a route no key names and a path no route serves', async () => {
    const { url } = await served({ ...TABLE, default: 'deny' });
    expect((await send(url, 'GET', '/other', { 'X-API-Key': KEY })).status).toBe(403);
    expect((await send(url, 'GET', '/nowhere', { 'X-API-Key': KEY })).status).toBe(403);
    const open = await served();
    expect((await send(open.url, 'GET', '/other', { 'X-API-Key': KEY })).status).toBe(200);
    expect((await send(open.url, 'GET', '/nowhere', { 'X-API-Key': KEY })).status).toBe(404);
  });
});
