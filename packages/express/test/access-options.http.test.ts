import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createAuthMiddleware, notFound } from '../src/index.js';

// OPTIONS under `auth.access`, held to plain Express: Express answers `OPTIONS /reports/1` itself
// (200, `Allow: GET, HEAD`) from the routes at that path. Under the table it must still, once the
// table lets the request through: an OPTIONS is judged by the entries of its path (whatever their
// method) unless an `OPTIONS` or `*` entry names it, and a CORS preflight by the rule of the
// method it announces when that is public or optional (docs/authorization.md, "OPTIONS").

const KEYS = { auditor: 'auditor-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
const echo: RequestHandler = (req, res) => res.json({ path: req.path });
const PREFLIGHT = { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' };

function routes(app: express.Express) {
  app.get('/reports/:id', echo);
  app.post('/reports/:id', echo);
  app.get('/health', echo);
  app.get('/admin/stats', echo);
  app.get('/other', echo);
  return app;
}

async function appWith(access: Record<string, unknown>) {
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'api_key',
        api_keys: {
          keys: [
            { name: 'auditor', env_var: 'AUDITOR_KEY', roles: ['auditor'] },
            { name: 'plain', env_var: 'PLAIN_KEY' },
          ],
        },
      },
      access,
    },
    { env: { AUDITOR_KEY: KEYS.auditor, PLAIN_KEY: KEYS.plain }, logger: createCaptureLogger() },
  );
  const app = express();
  app.use(auth.access);
  routes(app);
  app.use(notFound());
  return app;
}

/** Status, Allow and body of an answer, to compare with plain Express's. */
async function answer(app: express.Express, path: string, headers: Record<string, string> = {}) {
  const res = await request(app).options(path).set(headers);
  return { status: res.status, allow: res.headers.allow ?? null, body: res.text };
}

const TABLE = {
  'GET /reports/:id': { roles: ['auditor'] },
  'POST /reports/:id': { roles: ['auditor'] },
  'GET /health': 'public',
  '* /admin{/*path}': 'deny',
};

describe('OPTIONS under auth.access, as plain Express answers it', () => {
  const plain = routes(express());

  it('a request the table lets through gets Express answer (200, Allow), not the 404 of notFound()', async () => {
    const app = await appWith(TABLE);
    const expected = await answer(plain, '/reports/1');
    expect(expected).toEqual({ status: 200, allow: 'GET, HEAD, POST', body: 'GET, HEAD, POST' });
    expect(await answer(app, '/reports/1', { 'X-API-Key': KEYS.auditor })).toEqual(expected);
    expect(await answer(app, '/health')).toEqual(await answer(plain, '/health'));
  });

  it('is judged by the entries of its path, whatever their method: as closed as the most closed', async () => {
    const app = await appWith(TABLE);
    expect((await answer(app, '/reports/1')).status).toBe(401);
    expect((await answer(app, '/reports/1', { 'X-API-Key': KEYS.plain })).status).toBe(403);
    expect((await answer(app, '/admin', { 'X-API-Key': KEYS.auditor })).status).toBe(403);
    expect((await answer(app, '/admin/stats', { 'X-API-Key': KEYS.auditor })).status).toBe(403);
  });

  it('an OPTIONS or * entry of the path decides alone', async () => {
    const app = await appWith({ ...TABLE, 'OPTIONS /reports/:id': 'public' });
    expect(await answer(app, '/reports/1')).toEqual(await answer(plain, '/reports/1'));
  });

  it('a path no entry names: the default, then notFound() where no route is', async () => {
    const app = await appWith(TABLE);
    expect((await answer(app, '/other')).status).toBe(401);
    expect(await answer(app, '/other', { 'X-API-Key': KEYS.plain })).toEqual(await answer(plain, '/other'));
    const missing = await answer(app, '/nope', { 'X-API-Key': KEYS.plain });
    expect([missing.status, missing.allow, JSON.parse(missing.body)]).toEqual([
      404,
      null,
      { error: 'not_found', message: 'no such resource' },
    ]);
    const denied = await appWith({ ...TABLE, default: 'deny' });
    expect((await answer(denied, '/other', { 'X-API-Key': KEYS.plain })).status).toBe(403);
  });

  it('default: deny: a CORS preflight to a public GET route passes (the rule of the announced method)', async () => {
    const app = await appWith({ ...TABLE, default: 'deny' });
    expect(await answer(app, '/health', PREFLIGHT)).toEqual(await answer(plain, '/health', PREFLIGHT));
    expect((await answer(app, '/health', PREFLIGHT)).status).toBe(200);
    // Announcing a method whose rule needs a caller: judged as any OPTIONS, so 401 without one.
    expect((await answer(app, '/reports/1', PREFLIGHT)).status).toBe(401);
    expect((await answer(app, '/admin/stats', PREFLIGHT)).status).toBe(403);
  });

  it('Express answer under a router mounted at a path too', async () => {
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key', api_keys: { keys: [{ name: 'plain', env_var: 'PLAIN_KEY' }] } }, access: {} },
      { env: { PLAIN_KEY: KEYS.plain }, logger: createCaptureLogger() },
    );
    const router = express.Router();
    router.put('/items/:id', echo);
    const app = express();
    app.use(auth.access);
    app.use('/api', router);
    app.get('/api/items/:id', echo);
    app.use(notFound());
    const bare = express();
    bare.use('/api', express.Router().put('/items/:id', echo));
    bare.get('/api/items/:id', echo);
    expect(await answer(app, '/api/items/1', { 'X-API-Key': KEYS.plain })).toEqual(await answer(bare, '/api/items/1'));
  });
});
