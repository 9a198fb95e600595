import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, type AuthConfig, type AuthHandler, type CreateHandler } from '@authlayer/core';
import { createCaptureLogger, createSigningKey, mintToken, startJwksServer } from '@authlayer/testkit';
import express from 'express';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createAuthMiddleware, type AuthMiddlewareOptions, type ReloadEvent } from '../src/index.js';

/** The variable of the first entry of `auth.api_keys.keys`, as the config file wrote it. */
const firstKeyVariable = (config: AuthConfig): string | undefined =>
  (config.modeSections?.api_keys as { keys?: { env_var?: string }[] } | undefined)?.keys?.[0]?.env_var;

// auth.reload() (contract, "Live changes without a restart"): check everything first, then swap.
const OLD = 'old-key-0123456789abcdef';
const NEW = 'new-key-0123456789abcdef';
const env = { OLD_KEY: OLD, NEW_KEY: NEW };
const withKey = (variable: string, extra: object = {}) => ({
  auth: { mode: 'api_key', api_keys: { keys: [{ name: 'client', env_var: variable }] } },
  ...extra,
});

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authlayer-reload-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function setUp(config: object, options: AuthMiddlewareOptions = {}) {
  const logger = createCaptureLogger();
  const events: ReloadEvent[] = [];
  const auth = await createAuthMiddleware(config, { env, logger, onReload: (event) => events.push(event), ...options });
  const app = express();
  app.get('/me', auth, (req, res) => void res.json(req.auth));
  const status = (key: string) =>
    request(app)
      .get('/me')
      .set('X-API-Key', key)
      .then((res) => res.status);
  return { auth, app, logger, events, status };
}

/** Resolves with the next reload event (a watch reloads on its own). */
function nextReload(events: ReloadEvent[]): Promise<ReloadEvent> {
  const seen = events.length;
  return new Promise((resolve) => {
    const poll = () => (events.length > seen ? resolve(events[seen]!) : setImmediate(poll));
    poll();
  });
}

describe('auth.reload(config)', () => {
  it('swaps at once: the new key gets 200, the old one 401; one info line, generation 2', async () => {
    const { auth, status, logger, events } = await setUp(withKey('OLD_KEY'));
    expect(auth.reloadState()).toEqual({ generation: 1, loadedAt: expect.any(String), lastReloadError: null });
    await expect(auth.reload(withKey('NEW_KEY'))).resolves.toMatchObject({ generation: 2 });
    expect([await status(NEW), await status(OLD)]).toEqual([200, 401]);
    expect(events).toEqual([{ result: 'ok', generation: 2 }]);
    expect(logger.lines).toContainEqual({ level: 'info', message: 'config reloaded: generation 2 serves' });
    expect(firstKeyVariable(auth.config)).toBe('NEW_KEY');
    await auth.close();
  });

  it('a failed reload changes nothing, names the field, and the next good one clears the error', async () => {
    const { auth, status, logger, events } = await setUp(withKey('OLD_KEY'));
    const failure = auth.reload(withKey('UNSET_KEY'));
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    const line =
      'config reload failed: auth.api_keys.keys[0].env_var: environment variable UNSET_KEY is unset or empty; generation 1 keeps serving';
    expect(logger.lines).toContainEqual({ level: 'error', message: line });
    expect(auth.reloadState()).toMatchObject({ generation: 1, lastReloadError: line });
    expect(events).toEqual([{ result: 'failed', generation: 1, error: line }]);
    expect(await status(OLD)).toBe(200);
    // A broken config is refused the same way, before anything is built.
    await expect(auth.reload({ auth: { mode: 'api_key', api_keys: { header: '' } } })).rejects.toThrow(
      /auth\.api_keys\.header/,
    );
    await auth.reload(withKey('NEW_KEY'));
    expect(auth.reloadState()).toMatchObject({ generation: 2, lastReloadError: null });
    await auth.close();
  });

  it('lets a request that started finish under its config, while later ones get the new one', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => (arrived = resolve));
    // The real API key mode, one of whose requests waits (as one waiting for a key set would).
    const importModule = async (name: string) => {
      const real = (await import(name)) as { createHandler: CreateHandler };
      const createHandler: CreateHandler = async (config, deps) => {
        const handler = await real.createHandler(config, deps);
        const slow: AuthHandler = {
          method: handler.method,
          authenticate: async (req) => {
            if (req.headers['x-slow'] !== undefined) {
              arrived();
              await gate;
            }
            return handler.authenticate(req);
          },
        };
        return slow;
      };
      return { ...real, createHandler };
    };
    const { auth, app, status } = await setUp(withKey('OLD_KEY'), { importModule });
    const started = request(app).get('/me').set('X-API-Key', OLD).set('X-Slow', '1');
    const inFlight = started.then((res) => res.status);
    await waiting;
    await auth.reload(withKey('NEW_KEY'));
    expect(await status(OLD)).toBe(401);
    open();
    expect(await inFlight).toBe(200);
    await auth.close();
  });

  it('runs reloads one at a time, in order', async () => {
    const { auth, events } = await setUp(withKey('OLD_KEY'));
    await Promise.all([auth.reload(withKey('NEW_KEY')), auth.reload(withKey('OLD_KEY'))]);
    expect(events.map((event) => event.generation)).toEqual([2, 3]);
    expect(firstKeyVariable(auth.config)).toBe('OLD_KEY');
    await auth.close();
  });

  it('keeps rate_limit as it was at start, with a warning, and says checkReload refusals', async () => {
    const limited = withKey('OLD_KEY', { rate_limit: { requests_per_minute: 100 } });
    const { auth, logger } = await setUp(limited, {
      checkReload: ({ config }) => {
        if (firstKeyVariable(config) === 'NEW_KEY') throw new ConfigError({ path: 'access', message: 'no' });
      },
    });
    await auth.reload(withKey('OLD_KEY', { rate_limit: { requests_per_minute: 1 } }));
    expect(logger.lines).toContainEqual({
      level: 'warn',
      message: 'config reload: rate_limit changed; it is kept as it was at start until a restart',
    });
    expect(auth.config.rateLimit?.requestsPerMinute).toBe(1);
    await expect(auth.reload(withKey('NEW_KEY'))).rejects.toThrow('access: no');
    expect(auth.reloadState().generation).toBe(2);
    await auth.close();
  });

  it('without a config, reads the file again; a config given as an object has none', async () => {
    const path = join(dir, 'service.yaml');
    writeFileSync(path, 'auth:\n  api_keys:\n    env_var: OLD_KEY\n');
    const { auth, status } = await setUp(await loadConfig(path));
    writeFileSync(path, 'auth:\n  api_keys:\n    env_var: NEW_KEY\n');
    await auth.reload();
    expect([await status(NEW), await status(OLD)]).toEqual([200, 401]);
    const plain = await setUp(withKey('OLD_KEY'));
    await expect(plain.auth.reload()).rejects.toThrow(TypeError);
    expect(plain.auth.reloadState().lastReloadError).toBe(
      'config reload failed: unexpected TypeError; generation 1 keeps serving',
    );
    await Promise.all([auth.close(), plain.auth.close()]);
  });
});

describe('a reload in an own app that would leave an access key matching no route', () => {
  const ADMIN = 'admin-key-0123456789abcdef';
  const PLAIN = 'plain-key-0123456789abcdef';
  const tableFile = (key: string, extra = '') => `auth:
  mode: api_key
  api_keys:
    keys:
      - { name: admin, env_var: ADMIN_KEY, roles: [admin] }
      - { name: plain, env_var: PLAIN_KEY }
access:
  "${key}": { roles: [admin] }
${extra}`;
  async function ownApp(file: string) {
    const logger = createCaptureLogger();
    const auth = await createAuthMiddleware(await loadConfig(file), {
      env: { ADMIN_KEY: ADMIN, PLAIN_KEY: PLAIN },
      logger,
    });
    const app = express();
    app.use(auth.access);
    app.get('/reports/:id', (req, res) => void res.json({ id: req.params.id }));
    const status = (key: string) =>
      request(app)
        .get('/reports/1')
        .set('X-API-Key', key)
        .then((res) => res.status);
    return { auth, app, logger, status };
  }

  it('is refused naming the key, and the old generation keeps serving (the app known from its requests)', async () => {
    const file = join(dir, 'own-app-typo.yaml');
    writeFileSync(file, tableFile('GET /reports/:id'));
    const { auth, logger, status } = await ownApp(file);
    expect([await status(PLAIN), await status(ADMIN)]).toEqual([403, 200]);
    writeFileSync(file, tableFile('GET /reprts/:id'));
    await expect(auth.reload()).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/^access\.GET \/reprts\/:id: the app has no route that GET \/reprts\/:id matches/),
    });
    expect(logger.text).toContainEqual(
      expect.stringMatching(/^error: config reload failed: access\.GET \/reprts\/:id: .*; generation 1 keeps serving$/),
    );
    expect(auth.reloadState().generation).toBe(1);
    expect([await status(PLAIN), await status(ADMIN)]).toEqual([403, 200]);
    // A table whose keys all match still reloads.
    writeFileSync(file, tableFile('GET /reports/:id', '  "GET /reports/:id/": authenticated\n'));
    await expect(auth.reload()).resolves.toMatchObject({ generation: 2 });
    await auth.close();
  });

  it('is refused before any request when the app was given to unmatchedRules(app); not with forward_auth', async () => {
    const file = join(dir, 'own-app-unmatched.yaml');
    writeFileSync(file, tableFile('GET /reports/:id'));
    const { auth, app, status } = await ownApp(file);
    expect(auth.unmatchedRules(app)).toEqual([]);
    writeFileSync(file, tableFile('GET /reprts/:id'));
    await expect(auth.reload()).rejects.toThrow(/access\.GET \/reprts\/:id/);
    expect(await status(PLAIN)).toBe(403);
    // With forward_auth the table describes the application behind the proxy: not checked.
    writeFileSync(file, tableFile('GET /reprts/:id', 'forward_auth: { enabled: true }\n'));
    await expect(auth.reload()).resolves.toMatchObject({ generation: 2 });
    await auth.close();
  });
});

describe('what the middleware says follows the serving config', () => {
  it('accessFor, accessAs, resourceMetadata and prepare answer for the new config', async () => {
    const prepared: string[] = [];
    const { auth, app } = await setUp(withKey('OLD_KEY'), {
      prepare: (config) => {
        prepared.push(firstKeyVariable(config) ?? '');
        return config;
      },
    });
    app.all(
      '/as',
      (req, res, next) => auth.accessAs('POST', req, res, next),
      (_req, res) => void res.json({}),
    );
    expect(auth.accessFor('GET', '/open')).toEqual({ authentication: 'required', mayRefuse: false });
    expect(auth.resourceMetadata()).toBeNull();
    await auth.reload(
      withKey('NEW_KEY', {
        access: { 'GET /open': 'public', 'POST /as': { roles: ['admin'] } },
        resource: { identifier: 'https://api.example' },
      }),
    );
    expect(prepared).toEqual(['OLD_KEY', 'NEW_KEY']);
    expect(auth.accessFor('GET', '/open')).toEqual({ authentication: 'none', mayRefuse: false });
    expect(auth.resourceMetadata()?.url).toBe('https://api.example/.well-known/oauth-protected-resource');
    // The new table: an authenticated client without the admin role is refused.
    await request(app).get('/as').set('X-API-Key', NEW).expect(403);
    await auth.close();
  });
});

describe('JWT: what a reload keeps and drops', () => {
  it('keeps the key set of an unchanged source (no fetch), and drops the cache of verified tokens', async () => {
    const key = await createSigningKey('RS256');
    const jwks = await startJwksServer([key.publicJwk]);
    const cache: string[] = [];
    const jwtConfig = (audience: string) => ({ auth: { mode: 'jwt', jwt: { jwks_url: jwks.url, audience } } });
    const { auth, app } = await setUp(jwtConfig('api'), {
      observe: { tokenCache: (result) => void cache.push(result) },
    });
    const now = Math.floor(Date.now() / 1000);
    const token = await mintToken(key, { sub: 'ada', aud: 'api', iat: now, exp: now + 300 });
    const get = () => request(app).get('/me').set('Authorization', `Bearer ${token}`);
    // A token is cached on its second verification (see createTokenCache).
    for (let i = 0; i < 3; i++) await get().expect(200);
    expect([jwks.hits, cache]).toEqual([1, ['miss', 'miss', 'hit']]);
    // The same config again: the key set is kept (no fetch), the cached verification is not.
    await auth.reload(jwtConfig('api'));
    await get().expect(200);
    expect([jwks.hits, cache.slice(3)]).toEqual([1, ['miss']]);
    await auth.reload(jwtConfig('other'));
    await get().expect(401);
    expect(jwks.hits).toBe(1);
    await auth.close();
    await jwks.close();
  });
});

describe('reload.watch', () => {
  /** A Kubernetes secret volume: `key` links through `..data`, which links to a timestamped directory. */
  function secretVolume(name: string, key: string) {
    const volume = join(dir, name);
    mkdirSync(join(volume, '..2026_01'), { recursive: true });
    writeFileSync(join(volume, '..2026_01', 'key'), `${key}\n`);
    symlinkSync('..2026_01', join(volume, '..data'));
    symlinkSync('..data/key', join(volume, 'key'));
    return {
      keyFile: join(volume, 'key'),
      // What the kubelet does: a new directory, a new link beside ..data, renamed over it (atomic).
      update(next: string) {
        mkdirSync(join(volume, '..2026_02'));
        writeFileSync(join(volume, '..2026_02', 'key'), `${next}\n`);
        symlinkSync('..2026_02', join(volume, '..data_tmp'));
        renameSync(join(volume, '..data_tmp'), join(volume, '..data'));
        rmSync(join(volume, '..2026_01'), { recursive: true });
      },
    };
  }

  it('reloads when Kubernetes swaps the ..data link of a mounted secret, and when the config is edited', async () => {
    const volume = secretVolume('secret', OLD);
    const path = join(dir, 'watched.yaml');
    writeFileSync(path, `auth:\n  api_keys:\n    key_file: ${volume.keyFile}\nreload:\n  watch: true\n`);
    const { auth, status, events } = await setUp(await loadConfig(path));
    const first = nextReload(events);
    volume.update(NEW);
    expect(await first).toEqual({ result: 'ok', generation: 2 });
    expect([await status(NEW), await status(OLD)]).toEqual([200, 401]);
    // The config file itself, edited in place: a broken one is refused and the old keeps serving.
    const second = nextReload(events);
    writeFileSync(path, `auth:\n  api_keys:\n    key_file: ${join(dir, 'absent')}\nreload:\n  watch: true\n`);
    expect(await second).toMatchObject({ result: 'failed', generation: 2 });
    expect(events[1]?.error).toMatch(/auth\.api_keys\.key_file: file \/.+\/absent does not exist/);
    expect(await status(NEW)).toBe(200);
    await auth.close();
  });

  it('watches nothing after close()', async () => {
    const volume = secretVolume('closed', OLD);
    const path = join(dir, 'closed.yaml');
    writeFileSync(path, `auth:\n  api_keys:\n    key_file: ${volume.keyFile}\nreload:\n  watch: true\n`);
    const { auth, events } = await setUp(await loadConfig(path));
    await auth.close();
    volume.update(NEW);
    // A reload, if one were still watched, would come within its settle time (50 ms).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(events).toEqual([]);
  });
});
