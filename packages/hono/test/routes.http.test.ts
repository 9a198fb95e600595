import { afterEach, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { Hono, type Context } from 'hono';
import { serveHono, type ServedHono } from './support/serve.js';

const KEY = 'k3y-for-the-hono-route-tests';
const opened: ServedHono[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((served) => served.close()));
});

const answer = (c: Context) => c.json({ user: c.get('auth')?.userId ?? null });

async function served(access: object, routes: Parameters<typeof serveHono>[1], logger = createCaptureLogger()) {
  const app = await serveHono(
    { config: { auth: { mode: 'api_key' }, access }, env: { SERVICE_API_KEY: KEY }, logger },
    routes,
  );
  opened.push(app);
  return app;
}

const status = async (url: string, method = 'GET', headers: Record<string, string> = {}) =>
  (await fetch(url, { method, headers })).status;

describe('keys name the routes Hono registered', () => {
  it('unmatchedRules(app) lists the keys that name no route, middleware paths not counted', async () => {
    const { app, auth } = await served(
      { 'GET /reports/:id': 'public', 'POST /typo': 'deny', 'GET /admin/*': 'deny' },
      (app) => {
        app.use('/admin/*', async (_c, next) => next());
        app.get('/reports/:id', answer);
      },
    );
    expect(auth.unmatchedRules(app)).toEqual(['POST /typo', 'GET /admin/*']);
  });

  it('a reload whose keys name no route is refused once unmatchedRules(app) was asked', async () => {
    const { app, auth } = await served({ 'GET /reports/:id': 'public' }, (app) => app.get('/reports/:id', answer));
    expect(auth.unmatchedRules(app)).toEqual([]);
    await expect(
      auth.reload({ auth: { mode: 'api_key' }, access: { 'GET /reports/:id': 'public', 'GET /gone': 'deny' } }),
    ).rejects.toThrow('access.GET /gone: names no route registered on this Hono app');
  });

  it("a sub-app's routes are named with its base path; a route's own middleware does not shadow it", async () => {
    const { url } = await served({ 'GET /api/reports/:id': 'public', 'GET /guarded': 'deny' }, (app) => {
      const api = new Hono();
      api.get('/reports/:id', answer);
      app.route('/api', api);
      app.get('/guarded', async (_c, next) => next(), answer);
    });
    expect(await status(`${url}/api/reports/7`)).toBe(200);
    expect(await status(`${url}/reports/7`, 'GET', { 'X-API-Key': KEY })).toBe(404);
    expect(await status(`${url}/guarded`, 'GET', { 'X-API-Key': KEY })).toBe(403);
  });

  it('a function a routing method registered that takes next (a WebSocket helper) is a route its key names', async () => {
    const { app, auth, url } = await served({ 'GET /ws': 'deny' }, (app) => {
      // The shape of `upgradeWebSocket(...)`: answers an upgrade, passes anything else on.
      app.get('/ws', async (c, next) => (c.req.header('x-upgrade') === 'yes' ? c.text('up') : next()));
    });
    expect(auth.unmatchedRules(app)).toEqual([]);
    expect(await status(`${url}/ws`, 'GET', { 'X-API-Key': KEY, 'X-Upgrade': 'yes' })).toBe(403);
  });

  it('the first matching handler in registration order is the route: a key on a later one does not apply', async () => {
    const { url } = await served({ 'GET /items/:id': 'public', 'GET /items/special': 'deny' }, (app) => {
      app.get('/items/:id', answer);
      app.get('/items/special', answer);
    });
    // Hono answers from /items/:id, registered first: its key applies.
    expect(await status(`${url}/items/special`)).toBe(200);
  });

  it('tenant_param reads the parameter of the route Hono matched', async () => {
    const { url } = await served({ 'GET /t/:tenant/items': { tenant_param: 'tenant' } }, (app) => {
      app.get('/t/:tenant/items', answer);
    });
    // An API key has no tenant: the rule refuses it for any tenant.
    expect(await status(`${url}/t/acme/items`, 'GET', { 'X-API-Key': KEY })).toBe(403);
  });
});

describe('start-up', () => {
  it('a Redis store says at start-up that the app needs Node.js', async () => {
    const logger = createCaptureLogger();
    const { nodeOnlyWarning } = await import('../src/node-only.js');
    expect(nodeOnlyWarning({ rateLimit: { store: 'redis://127.0.0.1:1' }, revocation: null } as never)).toContain(
      'rate_limit.store on Redis need Node.js',
    );
    await served({}, (app) => app.get('/x', answer), logger);
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
