import { beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, expectedContext } from '@authlayer/testkit';
import cors from 'cors';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, requirePermissions, type AuthMiddleware } from '../src/index.js';

const KEY = 'k3y-for-optional-auth';
const ORIGIN = 'https://app.example.com';
const API_KEY_MISSING = 'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"';

let auth: AuthMiddleware;
beforeAll(async () => {
  auth = await createAuthMiddleware(
    { auth: { mode: 'api_key' } },
    { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
  );
});

describe('auth.optional', () => {
  const app = () => {
    const made = express();
    made.get('/me', auth.optional, (req, res) => res.json(req.auth));
    made.post('/guarded', auth.optional, requirePermissions('invoke'), (req, res) => res.json(req.auth));
    return made;
  };

  it('lets a request without any credential through with the anonymous context', async () => {
    const res = await request(app()).get('/me').expect(200);
    expect(res.body).toEqual(expectedContext({ method: 'none' }));
  });

  it('authenticates a request with a good credential', async () => {
    const res = await request(app()).get('/me').set('X-API-Key', KEY).expect(200);
    expect(res.body).toEqual(expectedContext({ method: 'api_key', userId: 'SERVICE_API_KEY' }));
  });

  it('answers a wrong credential with the same 401 as auth, never anonymous', async () => {
    const res = await request(app()).get('/me').set('X-API-Key', 'wrong').expect(401);
    const strict = await request(express().get('/me', auth, (_req, res2) => res2.end()))
      .get('/me')
      .set('X-API-Key', 'wrong');
    expect(res.body).toEqual(strict.body);
    expect(res.headers['www-authenticate']).toBe(strict.headers['www-authenticate']);
    await request(app()).get('/me').set('Authorization', `Bearer wrong`).expect(401);
  });

  it.each([
    ['an empty API key header', { 'X-API-Key': '' }],
    ['another Authorization scheme', { Authorization: 'Basic dXNlcjpwYXNz' }],
    ['a Bearer header without a token', { Authorization: 'Bearer' }],
  ])('never downgrades %s to anonymous (401)', async (_name, headers) => {
    const res = await request(app()).get('/me').set(headers).expect(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('makes a guard after it ask for credentials (401 with the mode challenge), not refuse them', async () => {
    const res = await request(app()).post('/guarded').expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
    expect(res.headers['www-authenticate']).toBe(API_KEY_MISSING);
    await request(app()).post('/guarded').set('X-API-Key', KEY).expect(403);
  });
});

describe('CORS preflight, with the cors package', () => {
  // auth first, as apps that protect everything write it; cors() after it must see the preflight,
  // which only passes when the app says so (passPreflight).
  let passing: AuthMiddleware;
  beforeAll(async () => {
    passing = await createAuthMiddleware(
      { auth: { mode: 'api_key' } },
      { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger(), passPreflight: true },
    );
  });
  const app = (middleware: express.RequestHandler) => {
    const made = express();
    made.use(middleware);
    made.use(cors({ origin: ORIGIN, allowedHeaders: ['X-API-Key', 'Authorization', 'Content-Type'] }));
    made.post('/invoke', (req, res) => res.json(req.auth ?? null));
    return made;
  };
  const preflight = (middleware: express.RequestHandler) =>
    request(app(middleware))
      .options('/invoke')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'x-api-key, content-type');

  // Without the option, `app.all('/export', auth, handler)` ran for an anonymous OPTIONS that looked
  // like a preflight, and so did anything mounted behind auth (a proxy, a sub-app).
  it('refuses a preflight by default: auth answers 401, auth.optional lets it through anonymous', async () => {
    const res = await preflight(auth).expect(401);
    expect(res.headers['www-authenticate']).toBe(API_KEY_MISSING);
    const made = express();
    made.all('/export', auth, (_req, res) => res.json({ ran: true }));
    await request(made)
      .options('/export')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'GET')
      .expect(401);
    const anonymous = await preflight(auth.optional).expect(204);
    expect(anonymous.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it.each([
    ['auth', () => passing],
    ['auth.optional', () => passing.optional],
  ])('with passPreflight, passes %s untouched: the browser gets its 204 with the CORS headers', async (_name, pick) => {
    const res = await preflight(pick()).expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
    expect(res.headers['access-control-allow-headers']).toBe('X-API-Key,Authorization,Content-Type');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('still needs credentials for the real request', async () => {
    const res = await request(app(auth)).post('/invoke').set('Origin', ORIGIN).expect(401);
    expect(res.headers['www-authenticate']).toBe(API_KEY_MISSING);
    const ok = await request(app(auth)).post('/invoke').set('Origin', ORIGIN).set('X-API-Key', KEY).expect(200);
    expect(ok.body.method).toBe('api_key');
    expect(ok.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('authenticates an OPTIONS request that is not a preflight', async () => {
    await request(app(auth)).options('/invoke').set('Origin', ORIGIN).expect(401);
    await request(app(auth)).options('/invoke').set('Access-Control-Request-Method', 'POST').expect(401);
  });

  it('leaves req.auth unset on the preflight, so a guard after it still refuses', async () => {
    const made = express();
    made.options('/invoke', passing, requirePermissions('invoke'), (_req, res) => res.sendStatus(204));
    await request(made)
      .options('/invoke')
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .expect(401);
  });
});
