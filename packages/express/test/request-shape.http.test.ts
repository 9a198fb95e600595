import { describe, expect, it } from '@jest/globals';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

// Express 5 changes each request's prototype, so every own property added to `req` afterwards
// costs a hidden class per request: authlayer adds `req.auth` and nothing else, whichever of its
// middleware run (the request's scope lives in `res.locals`). The route reports the request's own
// keys; a bare app's route, given the same request, is the control.
const KEY = 'k3y-for-the-request-shape-tests';

const ownKeys: RequestHandler = (req, res) => {
  res.json({ keys: Reflect.ownKeys(req).map(String).sort() });
};

async function keysOf(app: express.Express, key: string | null) {
  const call = request(app).get('/items/1');
  const res = await (key === null ? call : call.set('X-API-Key', key)).expect(200);
  return res.body.keys as string[];
}

async function authlayerApp() {
  const auth = await createAuthMiddleware(
    {
      auth: { mode: 'api_key' },
      access: { 'GET /items/:id': 'authenticated' },
      rate_limit: { requests_per_minute: 1_000_000, store: 'memory' },
    },
    { env: { SERVICE_API_KEY: KEY } },
  );
  const app = express();
  app.use(auth.access);
  app.get('/items/:id', auth, ownKeys);
  const optional = express();
  optional.get('/items/:id', auth.optional, ownKeys);
  return { app, optional };
}

describe('what authlayer adds to an Express request', () => {
  it('req.auth, and no other own property, on a request the table, the flow and the limit passed', async () => {
    const bare = express();
    bare.get('/items/:id', ownKeys);
    const { app } = await authlayerApp();
    const before = await keysOf(bare, KEY);
    const after = await keysOf(app, KEY);
    expect(after.filter((k) => !before.includes(k))).toEqual(['auth']);
    expect(before.filter((k) => !after.includes(k))).toEqual([]);
  });

  it('nothing but req.auth on an anonymous request that auth.optional let through', async () => {
    const bare = express();
    bare.get('/items/:id', ownKeys);
    const { optional } = await authlayerApp();
    const control = await keysOf(bare, null);
    const added = (await keysOf(optional, null)).filter((k) => !control.includes(k));
    expect(added).toEqual(['auth']);
  });
});
