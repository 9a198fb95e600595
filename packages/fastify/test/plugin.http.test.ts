import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { call } from './support/call.js';
import authlayer, { type AuthDecision, type AuthlayerOptions } from '../src/index.js';

const KEY = 'k3y-for-the-plugin-tests';
const env = { SERVICE_API_KEY: KEY };
const opened: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

/** An app with the plugin, and routes added by `routes` before `ready()`. */
async function appWith(
  access: object,
  routes: (app: FastifyInstance) => void,
  options: Partial<AuthlayerOptions> & { fastify?: FastifyServerOptions } = {},
) {
  const { fastify, ...rest } = options;
  const app = Fastify(fastify ?? {});
  opened.push(app);
  const decisions: AuthDecision[] = [];
  await app.register(authlayer, {
    config: { auth: { mode: 'api_key' }, access },
    env,
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
    ...rest,
  });
  routes(app);
  return { app, decisions };
}

const ok = async () => ({ ok: true });
const key = { 'x-api-key': KEY };

describe('keys name the routes Fastify registered', () => {
  it('a key that names no route fails app.ready(), naming the key', async () => {
    const { app } = await appWith({ 'GET /reports/:id': 'public', 'POST /typo': 'deny' }, (app) => {
      app.get('/reports/:id', ok);
    });
    expect(app.authlayer.unmatchedRules()).toEqual(['POST /typo']);
    await expect(app.ready()).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringContaining('access.POST /typo: names no route'),
    });
  });

  it('a key names the route by its URL as registered: another spelling of the same paths names none', async () => {
    const { app } = await appWith({ 'GET /reports/:reportId': 'public' }, (app) => {
      app.get('/reports/:id', ok);
    });
    await expect(app.ready()).rejects.toThrow('access.GET /reports/:reportId');
  });

  it('case: a key names the route as written; with caseSensitive: false any spelling that reaches it gets its rule', async () => {
    const refused = await appWith({ 'GET /Reports/:id': 'public' }, (app) => app.get('/reports/:id', ok));
    await expect(refused.app.ready()).rejects.toThrow('access.GET /Reports/:id');

    const { app } = await appWith({ 'GET /Reports/:id': 'deny' }, (app) => app.get('/Reports/:id', ok), {
      fastify: { routerOptions: { caseSensitive: false } },
    });
    await app.ready();
    for (const url of ['/Reports/1', '/reports/1', '/REPORTS/1']) {
      const res = await call(app, { method: 'GET', url, headers: key });
      expect([url, res.statusCode, res.json()]).toEqual([
        url,
        403,
        { error: 'forbidden', message: expect.any(String) },
      ]);
    }
  });

  it('ignoreTrailingSlash and ignoreDuplicateSlashes: every path that reaches the route had its rule applied', async () => {
    const { app } = await appWith(
      { 'GET /a/b': 'deny', 'GET /open': 'public' },
      (app) => {
        app.get('/a/b', ok);
        app.get('/open', ok);
      },
      { fastify: { routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true } } },
    );
    await app.ready();
    for (const url of ['/a/b', '/a/b/', '//a/b', '/a//b', '//a//b//']) {
      const res = await call(app, { method: 'GET', url, headers: key });
      // Either Fastify's router sends it to the route (and the deny applies) or to no route at all.
      expect([url, res.statusCode]).toEqual([url, 403]);
    }
    expect((await call(app, { method: 'GET', url: '/open/' })).statusCode).toBe(200);
  });

  it('a Fastify wildcard route is named as registered (`GET /files/*`), which loadConfig takes', async () => {
    const { app } = await appWith({ 'GET /files/*': { roles: ['admin'] } }, (app) => app.get('/files/*', ok));
    await app.ready();
    const res = await call(app, { method: 'GET', url: '/files/a/b.txt', headers: key });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', message: 'the role admin is required' });
    expect((await call(app, { method: 'GET', url: '/files/a' })).statusCode).toBe(401);
  });

  it('a wildcard key that names no registered route fails app.ready()', async () => {
    const { app } = await appWith({ 'GET /files/*': 'deny' }, (app) => app.get('/file/*', ok));
    await expect(app.ready()).rejects.toMatchObject({
      name: 'ConfigError',
      issues: [{ path: 'access.GET /files/*' }],
    });
  });

  it('a Fastify wildcard route is also named by the key with a named splat', async () => {
    const { app } = await appWith({ 'GET /files/*rest': { roles: ['admin'] } }, (app) => app.get('/files/*', ok));
    await app.ready();
    const res = await call(app, { method: 'GET', url: '/files/a/b.txt', headers: key });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: 'forbidden', message: 'the role admin is required' });
  });

  it('"* /x" names the routes of every method at /x; every key that names the route applies', async () => {
    const { app, decisions } = await appWith({ '* /x': 'authenticated', 'POST /x': 'deny' }, (app) => {
      app.get('/x', ok);
      app.post('/x', ok);
    });
    await app.ready();
    expect((await call(app, { method: 'GET', url: '/x' })).statusCode).toBe(401);
    expect((await call(app, { method: 'GET', url: '/x', headers: key })).statusCode).toBe(200);
    expect((await call(app, { method: 'POST', url: '/x', headers: key })).statusCode).toBe(403);
    expect(decisions.map((d) => d.outcome)).toEqual(['refused', 'allowed', 'forbidden']);
  });

  it('a route of a prefixed plugin is named with its prefix; a route of several methods by each', async () => {
    const { app } = await appWith({ 'GET /api/z': 'public', 'POST /m': 'public', 'GET /m': 'deny' }, (app) => {
      void app.register(async (child) => child.get('/z', ok), { prefix: '/api' });
      app.route({ method: ['GET', 'POST'], url: '/m', handler: ok });
    });
    await app.ready();
    expect((await call(app, { method: 'GET', url: '/api/z' })).statusCode).toBe(200);
    expect((await call(app, { method: 'POST', url: '/m' })).statusCode).toBe(200);
    expect((await call(app, { method: 'GET', url: '/m', headers: key })).statusCode).toBe(403);
    expect((await call(app, { method: 'HEAD', url: '/m', headers: key })).statusCode).toBe(403);
  });

  it('a request that reaches no route gets access.default', async () => {
    const { app } = await appWith({ default: 'deny', 'GET /open': 'public' }, (app) => app.get('/open', ok));
    await app.ready();
    expect((await call(app, { method: 'GET', url: '/nowhere', headers: key })).statusCode).toBe(403);
    expect((await call(app, { method: 'GET', url: '/open' })).statusCode).toBe(200);
  });

  it('a reload whose keys name no route is refused, and the serving config keeps serving', async () => {
    const { app } = await appWith({ 'GET /open': 'public' }, (app) => app.get('/open', ok));
    await app.ready();
    await expect(
      app.authlayer.reload({ auth: { mode: 'api_key' }, access: { 'GET /open': 'public', 'GET /gone': 'deny' } }),
    ).rejects.toThrow('access.GET /gone');
    expect((await call(app, { method: 'GET', url: '/open' })).statusCode).toBe(200);
    await app.authlayer.reload({ auth: { mode: 'api_key' }, access: { 'GET /open': 'authenticated' } });
    expect((await call(app, { method: 'GET', url: '/open' })).statusCode).toBe(401);
    expect(app.authlayer.reloadState().generation).toBe(2);
  });
});

describe('app.authlayer', () => {
  it('requireAccess: 401 without a caller, 403 lacking a role, the one decision per request', async () => {
    const { app, decisions } = await appWith({ 'GET /open': 'public', 'GET /me': 'optional' }, (app) => {
      const admin = app.authlayer.requireAccess({ roles: ['admin'] });
      app.get('/open', { preHandler: admin }, ok);
      app.get('/me', { preHandler: admin }, ok);
      app.get('/plain', { preHandler: admin }, ok);
    });
    await app.ready();
    const open = await call(app, { method: 'GET', url: '/open' });
    expect([open.statusCode, open.body]).toEqual([
      401,
      '{"error":"unauthorized","message":"no credentials were sent"}',
    ]);
    const me = await call(app, { method: 'GET', url: '/me' });
    expect(me.statusCode).toBe(401);
    expect(me.headers['www-authenticate']).toContain('ApiKey realm="authlayer"');
    const plain = await call(app, { method: 'GET', url: '/plain', headers: key });
    expect([plain.statusCode, plain.json()]).toEqual([
      403,
      { error: 'forbidden', message: 'the role admin is required' },
    ]);
    // The public route decided nothing: the guard's 401 is its decision. The optional one's
    // anonymous pass and the guard's 403 are each replaced by the guard's refusal.
    expect(decisions.map((d) => [d.outcome, d.reason, d.rule])).toEqual([
      ['refused', 'credentials_missing', 'GET /open'],
      ['refused', 'credentials_missing', 'GET /me'],
      ['forbidden', 'role_missing', 'GET /plain'],
    ]);
    expect(() => app.authlayer.requireAccess({ role: ['admin'] } as never)).toThrow(TypeError);
  });

  it('onDecision once per request, reported when the answer starts', async () => {
    const { app, decisions } = await appWith({}, (app) => {
      app.get('/a', async () => {
        // The allowed decision is held until the answer starts.
        expect(decisions).toEqual([]);
        return { ok: true };
      });
    });
    await app.ready();
    for (let i = 0; i < 3; i++) await call(app, { method: 'GET', url: '/a', headers: key });
    await call(app, { method: 'GET', url: '/a' });
    expect(decisions.map((d) => d.outcome)).toEqual(['allowed', 'allowed', 'allowed', 'refused']);
    expect(decisions[0]).toMatchObject({ userId: 'SERVICE_API_KEY', method: 'api_key', requestId: expect.any(String) });
  });

  it('an onDecision listener that throws: 500 with the contract body, logged without its message', async () => {
    const logger = createCaptureLogger();
    const { app } = await appWith({ 'GET /d': 'deny' }, (app) => app.get('/d', ok), {
      logger,
      onDecision: () => {
        throw new Error('secret detail');
      },
    });
    await app.ready();
    const res = await call(app, { method: 'GET', url: '/d' });
    expect([res.statusCode, res.body]).toEqual([500, '{"error":"internal","message":"internal error"}']);
    expect(logger.text.join('\n')).not.toContain('secret detail');
  });

  it("a listener that throws on a guard's 401 where no authentication ran: 500, as every refusal's", async () => {
    const logger = createCaptureLogger();
    const { app } = await appWith(
      { 'GET /open': 'public' },
      (app) => app.get('/open', { preHandler: app.authlayer.requireAccess({ roles: ['admin'] }) }, ok),
      {
        logger,
        onDecision: () => {
          throw new Error('secret detail');
        },
      },
    );
    await app.ready();
    const res = await call(app, { method: 'GET', url: '/open', headers: key });
    expect([res.statusCode, res.body]).toEqual([500, '{"error":"internal","message":"internal error"}']);
    expect(logger.text.join('\n')).not.toContain('secret detail');
  });

  it('securitySchemes, config, describe, readiness and the revocation API without a store', async () => {
    const { app } = await appWith({}, () => undefined);
    expect(app.authlayer.securitySchemes.schemes).toHaveProperty('APIKeyHeader');
    expect(app.authlayer.config.mode).toBe('api_key');
    expect(app.authlayer.readiness().ready).toBe(true);
    expect(app.authlayer.resourceMetadata()).toBeNull();
    await expect(app.authlayer.revoke('sub:alice')).rejects.toThrow();
  });

  it("Fastify's logger (pino) serves the log lines when no logger is given", async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = Fastify({ logger: { level: 'info', stream } });
    opened.push(app);
    await app.register(authlayer, {
      config: { auth: { mode: 'api_key' }, access: { 'GET /d': 'deny', report_only: true } },
      env,
    });
    app.get('/d', ok);
    await app.ready();
    expect((await call(app, { method: 'GET', url: '/d', headers: key })).statusCode).toBe(200);
    const warning = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => line.msg.startsWith('access report_only'));
    expect(warning).toEqual(
      expect.objectContaining({ level: 40, msg: 'access report_only: would_refuse GET /d (route_denied)' }),
    );
  });

  it('a missing mode package: no-auth with a warning; fallback: refuse refuses at register', async () => {
    const logger = createCaptureLogger();
    const missing = async () => {
      throw Object.assign(new Error("Cannot find package '@authlayer/jwt'"), { code: 'ERR_MODULE_NOT_FOUND' });
    };
    const { app } = await appWith({}, (app) => app.get('/a', async (request) => ({ method: request.auth?.method })), {
      config: { auth: { mode: 'jwt', jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } },
      importModule: missing,
      logger,
    });
    await app.ready();
    expect((await call(app, { method: 'GET', url: '/a' })).json()).toEqual({ method: 'none' });
    expect(logger.text.join('\n')).toContain('@authlayer/jwt');
    const refusing = Fastify();
    await expect(
      refusing.register(authlayer, {
        config: { auth: { mode: 'jwt', fallback: 'refuse', jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } },
        importModule: missing,
        logger,
      }),
    ).rejects.toMatchObject({ name: 'ConfigError' });
  });

  it('app.close() closes the engine: a watched config file no longer reloads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'authlayer-fastify-'));
    try {
      const file = join(dir, 'authlayer.yaml');
      await writeFile(file, 'auth: { mode: api_key }\nreload: { watch: true }\n');
      const reloads: string[] = [];
      let reloaded: () => void = () => undefined;
      const app = Fastify();
      await app.register(authlayer, {
        config: await loadConfig(file),
        env,
        logger: createCaptureLogger(),
        onReload: (e) => {
          reloads.push(e.result);
          reloaded();
        },
      });
      await app.ready();
      const first = new Promise<void>((resolve) => (reloaded = resolve));
      await writeFile(file, 'auth: { mode: api_key, api_keys: { header: X-Other } }\nreload: { watch: true }\n');
      await first;
      expect(reloads).toEqual(['ok']);
      await app.close();
      await writeFile(file, 'auth: { mode: api_key, api_keys: { header: X-Third } }\nreload: { watch: true }\n');
      // Waits for a reload that must not come; a slower machine only makes the wait longer.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(reloads).toEqual(['ok']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
