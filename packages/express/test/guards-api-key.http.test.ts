import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { rawPost } from './raw-post.js';
import { createAuthMiddleware, requireAccess, requirePermissions, requireRoles, requireScopes } from '../src/index.js';

const KEY = 'k3y.with.dots-for-guards';
const ok: RequestHandler = (req, res) => res.json(req.auth);

async function appFor(apiKeys: object) {
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key', api_keys: apiKeys } },
    { env: { SERVICE_API_KEY: KEY }, logger },
  );
  const seen: string[] = [];
  const app = express();
  app.post('/invoke', auth, requirePermissions('invoke'), (req, res) => {
    seen.push('invoke');
    res.json(req.auth);
  });
  app.get('/open', auth, ok);
  app.get('/roles-rule', auth, requireAccess({ permissions: [], scopes: [], roles: ['ops'] }), ok);
  app.get('/no-auth-first', requireRoles('admin'), ok);
  return { app, logger, seen };
}

describe('guards in API key mode', () => {
  it('answers 403 without WWW-Authenticate when the key came in its own header (no Bearer credential)', async () => {
    const { app, seen } = await appFor({});
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the permission invoke is required' });
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('adds the insufficient_scope challenge when the key came as a Bearer credential', async () => {
    const { app } = await appFor({});
    const res = await request(app).post('/invoke').set('Authorization', `Bearer ${KEY}`).expect(403);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="insufficient_scope", error_description="the permission invoke is required"',
    );
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });

  it('answers 401 from a guard that has no authentication before it, never letting through', async () => {
    const { app } = await appFor({});
    const res = await request(app).get('/no-auth-first').set('X-API-Key', KEY).expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="authlayer"');
  });

  it('keeps a guarded route closed (403) when API keys are disabled (the no-auth handler grants nothing)', async () => {
    const { app, seen, logger } = await appFor({ enabled: false });
    await request(app)
      .post('/invoke')
      .expect(403, { error: 'forbidden', message: 'the permission invoke is required' });
    await request(app).post('/invoke').set('X-API-Key', 'anything').expect(403);
    expect(seen).toEqual([]);
    // ...while an unguarded route passes, as the spec's fallback says.
    const res = await request(app).get('/open').expect(200);
    expect(res.body.method).toBe('none');
    expect(logger.text).toEqual([
      'warn: auth.api_keys.enabled is false: API key mode is off and requests are NOT authenticated',
    ]);
  });
});

describe('a guard refusing an upload', () => {
  // A 403 from a guard must not read an upload still on its way: the connection closes, as for a 401.
  it('answers 403 with Connection: close while the body has not arrived, before reading it', async () => {
    const { app, seen } = await appFor({});
    expect(await rawPost(app, '/invoke', { 'X-API-Key': KEY }, true)).toEqual({ status: 403, connection: 'close' });
    expect(seen).toEqual([]);
  });
});

describe('requireAccess', () => {
  it('guards with the kinds a rule lists, missing lists taken as empty', async () => {
    const { app } = await appFor({});
    await request(app)
      .get('/roles-rule')
      .set('X-API-Key', KEY)
      .expect(403, { error: 'forbidden', message: 'the role ops is required' });
    await request(app).get('/roles-rule').expect(401);
  });

  // A mistyped key (`access['GET /report']`) is undefined: a crash at start-up, never an open route.
  it.each([
    ['undefined', undefined, /not undefined \(a mistyped key\?\)/],
    ['null', null, /not null/],
    ['a word', 'public', /not the word "public"/],
    ['a list', [], /not a list/],
    ['an unknown field', { permission: ['x'] }, /unknown field permission/],
    ['a rule that requires nothing', { permissions: [] }, /requires nothing/],
    ['an any entry that requires nothing', { any: [{}] }, /an entry of any requires nothing/],
    ['a name with a space', { roles: ['a b'] }, /roles must be a list of names/],
    ['a string where a list belongs', { roles: 'admin' }, /roles must be a list of names/],
    ['modes', { roles: ['a'], modes: ['jwt'] }, /need auth.access/],
    ['tenant_param', { roles: ['a'], tenantParam: 'tenant' }, /need auth.access/],
  ])('throws TypeError at once for %s', (_name, rule, message) => {
    expect(() => requireAccess(rule as never)).toThrow(TypeError);
    expect(() => requireAccess(rule as never)).toThrow(message);
  });

  it("holds with one entry of any, and refuses with the first entry's reason when none holds", async () => {
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key', api_keys: { keys: [{ name: 'ops', env_var: 'OPS_KEY', roles: ['ops'] }] } } },
      { env: { OPS_KEY: KEY }, logger: createCaptureLogger() },
    );
    const app = express();
    app.get('/any-ops', auth, requireAccess({ any: [{ scopes: ['read'] }, { roles: ['ops'] }] }), ok);
    app.get('/any-none', auth, requireAccess({ any: [{ scopes: ['read'] }, { roles: ['admin'] }] }), ok);
    await request(app).get('/any-ops').set('X-API-Key', KEY).expect(200);
    await request(app)
      .get('/any-none')
      .set('X-API-Key', KEY)
      .expect(403, { error: 'forbidden', message: 'the scope read is required' });
  });
});

describe('guard factories', () => {
  it.each([
    ['no name', () => requirePermissions()],
    ['an empty name', () => requireScopes('')],
    ['a name with a space', () => requireRoles('a b')],
    ['a name with a quote', () => requirePermissions('a"b')],
    ['a name that is not a string', () => requirePermissions(1 as unknown as string)],
  ])('throw TypeError for %s', (_name, make) => {
    expect(make).toThrow(TypeError);
  });
});
