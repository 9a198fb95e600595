import { describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthHandler } from '@authlayer/core';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, errorHandler } from '../src/index.js';
import { createCaptureLogger as captureLogger, expectedContext } from '@authlayer/testkit';

const KEY = 'k3y-for-the-middleware-tests';
const env = { SERVICE_API_KEY: KEY };
const apiKeyConfig = { auth: { mode: 'api_key' } };

/** The contract's Library API, as a user writes it. */
async function userApp(config: object = apiKeyConfig, options = {}) {
  const logger = captureLogger();
  const auth = await createAuthMiddleware(config, { env, logger, ...options });
  const seen: unknown[] = [];
  const app = express();
  app.post('/invoke', auth, express.json(), (req, res) => {
    seen.push(req.body);
    res.json(req.auth);
  });
  return { app, auth, logger, seen };
}

describe('createAuthMiddleware', () => {
  it('sets req.auth and calls the route on success', async () => {
    const { app, seen } = await userApp();
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).send({ query: 'q' }).expect(200);
    expect(res.body).toEqual(expectedContext({ method: 'api_key', userId: 'SERVICE_API_KEY' }));
    expect(seen).toEqual([{ query: 'q' }]);
  });

  it('answers 401 itself, with the JSON body and WWW-Authenticate, without reading the body', async () => {
    const { app, seen, logger } = await userApp();
    const res = await request(app)
      .post('/invoke')
      .set('Connection', 'keep-alive')
      .set('X-API-Key', 'wrong')
      .send({ query: 'q' })
      .expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    expect(res.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", error="invalid_token", error_description="the credentials are not valid"',
    );
    // An unauthenticated upload is not drained: the connection is closed instead.
    expect(res.headers.connection).toBe('close');
    expect(seen).toEqual([]);
    expect(logger.text).toEqual([]);
  });

  it('keeps the connection open for a refused request without a body', async () => {
    const { app } = await userApp();
    const refused = await request(app).post('/invoke').set('Connection', 'keep-alive').expect(401);
    expect(refused.headers.connection).toBe('keep-alive');
    expect(refused.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    );
  });

  it('says what it is: mode, method and the parsed config', async () => {
    const { auth } = await userApp({ auth: { mode: 'api_key', api_keys: { header: 'X-Key', allow_bearer: false } } });
    expect(auth.mode).toBe('api_key');
    expect(auth.method).toBe('api_key');
    expect(auth.config.modeSections).toEqual({ api_keys: { header: 'X-Key', allow_bearer: false } });
  });

  it('accepts a config already parsed, and rejects a bad one with the field path', async () => {
    const { auth } = await userApp();
    const again = await createAuthMiddleware(auth.config, { env, logger: captureLogger() });
    expect(again.config).toBe(auth.config);
    await expect(createAuthMiddleware({ auth: { mode: 'api_key', api_keys: { header: '' } } })).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'auth.api_keys.header: must not be empty',
    });
  });

  it('rejects at start-up when the expected key is missing, naming the variable', async () => {
    await expect(createAuthMiddleware(apiKeyConfig, { env: {}, logger: captureLogger() })).rejects.toMatchObject({
      name: 'ConfigError',
      message: 'auth.api_keys.env_var: environment variable SERVICE_API_KEY is unset or empty',
    });
  });

  it('fails closed with a 500 when a handler breaks its contract by rejecting with something else', async () => {
    const broken: AuthHandler = { method: 'api_key', authenticate: () => Promise.reject(new Error(`boom ${KEY}`)) };
    const { app, logger } = await userApp(apiKeyConfig, {
      importModule: () => Promise.resolve({ createHandler: () => Promise.resolve(broken) }),
    });
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
    expect(logger.text).toEqual(['error: the POST /invoke handler failed (Error)']);
    expect(JSON.stringify(res.body) + logger.text.join()).not.toContain(KEY);
  });

  it('passes the pinned clock and the environment to the handler', async () => {
    const calls: unknown[] = [];
    const now = () => 1_700_000_000_000;
    await createAuthMiddleware(apiKeyConfig, {
      env,
      now,
      logger: captureLogger(),
      importModule: () =>
        Promise.resolve({
          createHandler: (_config: unknown, deps: unknown) => {
            calls.push(deps);
            return Promise.resolve({
              method: 'api_key',
              authenticate: () => Promise.resolve(createAuthContext({ method: 'api_key' })),
            });
          },
        }),
    });
    expect(calls).toEqual([expect.objectContaining({ env, now })]);
  });

  it('works behind the JSON error handler too', async () => {
    const { app } = await userApp();
    app.use(errorHandler({ logger: captureLogger() }));
    await request(app)
      .post('/invoke')
      .set('X-API-Key', KEY)
      .set('Content-Type', 'application/json')
      .send('{bad')
      .expect(400);
  });
});

describe('what the middleware tells operators', () => {
  const handlerWith = (extra: Partial<AuthHandler>): AuthHandler => ({
    method: 'api_key',
    authenticate: () => Promise.resolve(createAuthContext({ method: 'api_key', userId: 'x' })),
    ...extra,
  });
  const withHandler = (handler: AuthHandler) =>
    createAuthMiddleware(apiKeyConfig, {
      env,
      logger: captureLogger(),
      importModule: () => Promise.resolve({ createHandler: () => Promise.resolve(handler) }),
    });

  it('describe() and readiness() ask the active handler', async () => {
    const auth = await withHandler(
      handlerWith({
        describe: () => ({ clients: ['billing'] }),
        readiness: () => ({ ready: false, keys: 'not_fetched' }),
      }),
    );
    expect(auth.describe()).toEqual({ clients: ['billing'] });
    expect(auth.readiness()).toEqual({ ready: false, keys: 'not_fetched' });
  });

  it('a handler that says nothing is described as {} and always ready', async () => {
    const auth = await withHandler(handlerWith({}));
    expect(auth.describe()).toEqual({});
    expect(auth.readiness()).toEqual({ ready: true });
  });
});
