import { beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { checkConfig } from '../src/check-config.js';
import { headerValue } from '../src/routes/forward-auth.js';
import { CONFIG, env, KEYS } from './forward-auth-config.js';

// /forward-auth asked as Traefik's ForwardAuth asks (X-Forwarded-Method, X-Forwarded-Uri), over
// HTTP directly: the access table applied to the original request, identity headers on a 200.

let app: Express;
beforeAll(async () => {
  app = await createApp(CONFIG, { env, logger: createCaptureLogger() });
});

const ask = (method: string, uri: string, headers: Record<string, string> = {}) => {
  const req = request(app).get('/forward-auth').set('X-Forwarded-Method', method).set('X-Forwarded-Uri', uri);
  for (const [name, value] of Object.entries(headers)) req.set(name, value);
  return req;
};

describe('/forward-auth with Traefik headers', () => {
  it('answers 200 with the identity headers for a caller the route allows', async () => {
    const res = await ask('GET', '/reports/7?x=1', { 'X-API-Key': KEYS.reader }).expect(200);
    expect(res.headers['x-auth-user-id']).toBe('reader');
    expect(res.headers['x-auth-method']).toBe('api_key');
    expect(res.headers['x-auth-roles']).toBe('reader');
    expect(res.headers['x-auth-tenant']).toBe('acme');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toBe('');
  });

  it("answers the route's own 401, with its challenge, and 403 for a caller without the permission", async () => {
    const missing = await ask('GET', '/reports/7').expect(401);
    expect(missing.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    );
    expect(missing.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
    const forbidden = await ask('GET', '/reports/7', { 'X-API-Key': KEYS.plain }).expect(403);
    expect(forbidden.body).toEqual({ error: 'forbidden', message: 'the permission reports:read is required' });
    expect(forbidden.headers['x-auth-user-id']).toBeUndefined();
  });

  it('refuses every spelling of a guarded path as the route, and takes HEAD as GET', async () => {
    for (const uri of ['/REPORTS/7', '/reports/7/', '/Reports/7?a=b']) {
      await ask('GET', uri, { 'X-API-Key': KEYS.plain }).expect(403);
    }
    await ask('HEAD', '/reports/7', { 'X-API-Key': KEYS.plain }).expect(403);
    await ask('head', '/reports/7', { 'X-API-Key': KEYS.reader }).expect(200);
  });

  it('public: 200 with empty identity headers, without looking at credentials; deny: 403 for everyone', async () => {
    const open = await ask('GET', '/public/logo.png', { 'X-API-Key': 'wrong' }).expect(200);
    expect(open.headers['x-auth-user-id']).toBe('');
    await ask('POST', '/admin/users', { 'X-API-Key': KEYS.reader }).expect(403);
  });

  it('paths no entry names need any authenticated caller (default: authenticated)', async () => {
    await ask('DELETE', '/anything').expect(401);
    await ask('DELETE', '/anything', { 'X-API-Key': KEYS.plain }).expect(200);
  });

  it('answers 400 without an original URI, or with one that is not a path', async () => {
    const res = await request(app).get('/forward-auth').set('X-API-Key', KEYS.reader).expect(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      message: 'the proxy sent no original URI (X-Forwarded-Uri or X-Original-URI)',
    });
    await ask('GET', 'http://elsewhere/reports/7', { 'X-API-Key': KEYS.reader }).expect(400);
    await ask('G E T', '/reports/7', { 'X-API-Key': KEYS.reader }).expect(400);
  });

  it("takes nginx's X-Original-Method and X-Original-URI, with any method of its own", async () => {
    const res = await request(app)
      .post('/forward-auth')
      .set('X-Original-Method', 'GET')
      .set('X-Original-URI', '/reports/7')
      .set('X-API-Key', KEYS.reader)
      .expect(200);
    expect(res.headers['x-auth-user-id']).toBe('reader');
    // No method header: the original method is the forward request's own (nginx's subrequests keep it).
    await request(app).delete('/forward-auth').set('X-Original-URI', '/admin/x').expect(403);
  });

  it('passes a 429 with Retry-After once an address is over failed_auth_per_minute', async () => {
    const limited = await createApp(CONFIG, { env, logger: createCaptureLogger() });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await request(limited)
        .get('/forward-auth')
        .set('X-Forwarded-Method', 'GET')
        .set('X-Forwarded-Uri', '/reports/1')
        .set('X-API-Key', `wrong-${i}`);
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    await limited.shutdown();
  });

  it("keeps the service's own routes under the entries that match them, and accepts keys for proxied routes", async () => {
    await request(app).get('/healthz').expect(200);
    await request(app).post('/invoke').send({ query: 'q' }).expect(401);
  });

  it('is not served without forward_auth.enabled', async () => {
    const plain = await createApp(
      { auth: { mode: 'api_key' } },
      { env: { SERVICE_API_KEY: KEYS.reader }, logger: createCaptureLogger() },
    );
    await request(plain).get('/forward-auth').set('X-Forwarded-Uri', '/x').set('X-API-Key', KEYS.reader).expect(404);
  });
});

describe('one header style, canonical URIs only', () => {
  const withProxy = (proxy: 'nginx' | 'traefik') =>
    createApp({ ...CONFIG, forward_auth: { enabled: true, proxy } }, { env, logger: createCaptureLogger() });

  it('without forward_auth.proxy, headers of both styles are 400, never a decision', async () => {
    const both = [
      { 'X-Original-URI': '/admin/secret', 'X-Forwarded-Uri': '/public/x' },
      { 'X-Original-URI': '/reports/7', 'X-Forwarded-Method': 'GET' },
      { 'X-Original-Method': 'GET', 'X-Forwarded-Uri': '/reports/7' },
    ];
    for (const headers of both) {
      const res = await request(app).get('/forward-auth').set(headers).set('X-API-Key', KEYS.reader).expect(400);
      expect(res.body.error).toBe('invalid_request');
      expect(res.headers['x-auth-user-id']).toBeUndefined();
    }
  });

  it('proxy: nginx reads only X-Original-*; a client-sent X-Forwarded-* changes nothing', async () => {
    const nginx = await withProxy('nginx');
    await request(nginx)
      .get('/forward-auth')
      .set({ 'X-Original-URI': '/admin/secret.txt', 'X-Forwarded-Uri': '/public/x' })
      .expect(403);
    await request(nginx)
      .get('/forward-auth')
      .set({ 'X-Original-URI': '/reports/7', 'X-Original-Method': 'GET', 'X-Forwarded-Method': 'POST' })
      .set('X-API-Key', KEYS.plain)
      .expect(403);
    // Only Traefik's headers: nginx's URI is missing.
    const res = await request(nginx).get('/forward-auth').set('X-Forwarded-Uri', '/public/x').expect(400);
    expect(res.body.message).toBe('the proxy sent no original URI (X-Original-URI)');
    await nginx.shutdown();
  });

  it('proxy: traefik reads only X-Forwarded-*', async () => {
    const traefik = await withProxy('traefik');
    await request(traefik)
      .get('/forward-auth')
      .set({ 'X-Forwarded-Method': 'GET', 'X-Forwarded-Uri': '/admin/x', 'X-Original-URI': '/public/x' })
      .expect(403);
    await request(traefik).get('/forward-auth').set('X-Original-URI', '/public/x').expect(400);
    await traefik.shutdown();
  });

  it('a URI that is not canonical is 400 invalid_request with no identity headers, with any credential', async () => {
    for (const uri of ['/public/../admin/x', '/public/%2E%2e/admin/x', '//admin/x', '/%61dmin/x', '/public;/x']) {
      const res = await ask('GET', uri, { 'X-API-Key': KEYS.reader }).expect(400);
      expect(res.body).toEqual({
        error: 'invalid_request',
        message: expect.stringMatching(/^the original URI is not in canonical form: /),
      });
      expect(res.headers['x-auth-user-id']).toBeUndefined();
    }
  });

  it('forward_auth.listen: /forward-auth on its own app, none on the public one', async () => {
    const split = await createApp(
      { ...CONFIG, forward_auth: { enabled: true, proxy: 'traefik', listen: '127.0.0.1:0' } },
      { env, logger: createCaptureLogger() },
    );
    expect(split.auth.config.forwardAuth.listen).toEqual({ host: '127.0.0.1', port: 0 });
    await request(split).get('/forward-auth').set('X-Forwarded-Uri', '/public/x').expect(401);
    const res = await request(split.forwardAuth!).get('/forward-auth').set('X-Forwarded-Uri', '/public/x').expect(200);
    expect(res.headers['x-auth-user-id']).toBe('');
    await request(split.forwardAuth!).get('/invoke').expect(404);
    await split.shutdown();
  });
});

describe('identity header values', () => {
  it('joins lists with commas, sends absent values empty, and percent-encodes what a header cannot hold', () => {
    const context = createAuthContext({ method: 'jwt', userId: 'zoë%1\r\n', roles: ['a', 'b'], email: null });
    expect(headerValue(context, 'userId')).toBe('zo%C3%AB%251%0D%0A');
    expect(decodeURIComponent(headerValue(context, 'userId'))).toBe('zoë%1\r\n');
    expect(headerValue(context, 'roles')).toBe('a,b');
    expect(headerValue(context, 'email')).toBe('');
    expect(headerValue(undefined, 'userId')).toBe('');
  });
});

describe('--check', () => {
  it('shows access as the YAML writes it (the policy beside the routes) and forward_auth', async () => {
    const report = await checkConfig('service.yaml', parseAuthConfig(CONFIG), { env, logger: createCaptureLogger() });
    expect(report.forward_auth).toEqual({
      enabled: true,
      proxy: null,
      listen: null,
      identity_headers: {
        'X-Auth-User-Id': 'userId',
        'X-Auth-Method': 'method',
        'X-Auth-Roles': 'roles',
        'X-Auth-Tenant': 'tenantId',
      },
    });
    expect(report.access).toEqual({
      default: 'authenticated',
      report_only: false,
      log: 'none',
      'GET /reports/:id': {
        permissions: ['reports:read'],
        scopes: [],
        roles: [],
        any: [],
        modes: null,
        tenant_param: null,
      },
      'GET /public/*path': 'public',
      '* /admin{/*path}': 'deny',
    });
    // A mode's section is the listed mode package's (or one written beside it): jwt's and oauth2's are neither.
    expect(Object.keys(report.auth as object)).toEqual(['mode', 'fallback', 'api_keys']);
  });
});
