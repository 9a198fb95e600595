import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { loadConfig, type AuthConfig } from '@authlayer/core';
import { createSigningKey, mintToken } from '@authlayer/testkit';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../src/engine.js';
import { API_KEYS, engineAt, judge, KEYS, requestTo, T } from './support/engine-at.js';

// createEngine's options as an app gives them (or leaves them out), and what the engine says of
// its serving handler: each option reaches the handlers and every generation, a bad one is refused.

let open: Engine[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});
const kept = (engine: Engine) => (open.push(engine), engine);
const status = (outcome: Awaited<ReturnType<typeof judge>>['outcome']) =>
  outcome === null ? 'public' : outcome.pass ? 200 : outcome.answer.status;

describe('createEngine without options', () => {
  it('reads process.env and logs each line on stderr, prefixed, by its level', async () => {
    const lines: string[] = [];
    jest.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    // API keys turned off: nothing to read from the environment, requests go on anonymously.
    const config = { auth: { mode: 'api_key', api_keys: { enabled: false } } };
    const engine = kept(await createEngine(config));
    expect(engine.current().loaded.methods).toEqual(['none']);
    await engine.reload({ ...config, rate_limit: { requests_per_minute: 5 } });
    await expect(engine.reload({ auth: { mode: 'api_key', colour: 'blue' } })).rejects.toThrow();
    const off =
      '[authlayer] WARNING: auth.api_keys.enabled is false: API key mode is off and requests are NOT authenticated';
    expect(lines).toEqual([
      off,
      off,
      '[authlayer] WARNING: config reload: rate_limit changed; it is kept as it was at start until a restart',
      '[authlayer] config reloaded: generation 2 serves',
      '[authlayer] ERROR: config reload failed: auth.colour: unknown field; generation 2 keeps serving',
    ]);
  });
});

describe('createEngine options', () => {
  it('refuses an isRevoked that is not a function, at once', async () => {
    await expect(createEngine({ auth: API_KEYS }, { isRevoked: true as never })).rejects.toThrow(
      new TypeError('createAuthMiddleware: options.isRevoked must be a function'),
    );
  });

  it('isRevoked: JWT mode asks it with the verified claims; true is 401 token_revoked', async () => {
    const key = await createSigningKey('HS256');
    const asked: unknown[] = [];
    const { engine, decisions } = await engineAt(
      { auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_KEY', algorithms: ['HS256'], audience: 'api' } } },
      {
        env: { JWT_KEY: key.envValue },
        isRevoked: (_context, claims) => (asked.push(claims.jti), claims.jti === 'gone'),
      },
    );
    kept(engine);
    const send = async (jti: string) => {
      const token = await mintToken(key, { sub: 'ada', aud: 'api', jti, iat: T / 1000, exp: T / 1000 + 60 });
      return (await judge(engine.current(), requestTo('GET', '/x', { authorization: `Bearer ${token}` }))).outcome;
    };
    expect(await send('kept')).toMatchObject({ pass: true, context: { userId: 'ada' } });
    expect(await send('gone')).toMatchObject({ pass: false, answer: { status: 401 } });
    expect(asked).toEqual(['kept', 'gone']);
    expect(decisions.at(-1)).toMatchObject({ outcome: 'refused', reason: 'token_revoked', userId: null });
  });

  it("observe: the handler's counters move (an API key looked up: hit or miss)", async () => {
    const lookups: string[] = [];
    const { engine } = await engineAt({}, { observe: { keyLookup: (result) => void lookups.push(result) } });
    kept(engine);
    await judge(engine.current(), requestTo('GET', '/x', { 'x-api-key': KEYS.admin }));
    await judge(engine.current(), requestTo('GET', '/x', { 'x-api-key': 'not-a-key-0123456789abcdef' }));
    expect(lookups).toEqual(['hit', 'miss']);
  });

  it('prepare is applied to the first config and to each reloaded one', async () => {
    const prepare = (config: AuthConfig): AuthConfig => ({
      ...config,
      access: { ...config.access, 'GET /status': 'public' },
    });
    const { engine } = await engineAt({}, { prepare });
    kept(engine);
    const statusNow = async () => status((await judge(engine.current(), requestTo('GET', '/status'))).outcome);
    expect(await statusNow()).toBe('public');
    await engine.reload({ auth: API_KEYS });
    expect(await statusNow()).toBe('public');
    expect(status((await judge(engine.current(), requestTo('GET', '/other'))).outcome)).toBe(401);
  });
});

describe('what the engine says of its handler', () => {
  it("describe: the serving handler's own description; the no-auth handler's is empty", async () => {
    const { engine } = await engineAt();
    kept(engine);
    expect(engine.describe()).toMatchObject({ key_material: { ADMIN_KEY: 'set', PLAIN_KEY: 'set' } });
    expect(JSON.stringify(engine.describe())).not.toContain(KEYS.admin);
    await engine.reload({ auth: { mode: 'api_key', api_keys: { enabled: false } } });
    expect(engine.describe()).toEqual({});
  });
});

describe('reload', () => {
  it('without a config, when the serving one was not read from a file: a TypeError, nothing changes', async () => {
    const { engine, logger } = await engineAt();
    kept(engine);
    await expect(engine.reload()).rejects.toThrow(
      new TypeError('auth.reload() needs a config: the serving one was not read from a file by loadConfig'),
    );
    expect(engine.reloadState()).toMatchObject({
      generation: 1,
      lastReloadError: 'config reload failed: unexpected TypeError; generation 1 keeps serving',
    });
    expect(logger.text).toEqual(['error: config reload failed: unexpected TypeError; generation 1 keeps serving']);
  });

  it('refused by checkReload with a system error: the line names its kind and code, never its message', async () => {
    const { engine, logger } = await engineAt(
      {},
      {
        checkReload: () => {
          throw Object.assign(new Error('cannot open /srv/secret-route-file'), { code: 'EACCES' });
        },
      },
    );
    kept(engine);
    await expect(engine.reload({ auth: API_KEYS })).rejects.toMatchObject({ code: 'EACCES' });
    expect(logger.text).toEqual(['error: config reload failed: unexpected Error (EACCES); generation 1 keeps serving']);
  });
});

describe('reload.watch with a mode package that names no key files', () => {
  // The hmac mode written outside the monorepo (tests/e2e/fixtures): its handler has no keyFiles.
  const FIXTURE = new URL('../../../tests/e2e/fixtures/authlayer-hmac/index.js', import.meta.url).href;
  const importModule = (name: string) => import(name === '@authlayer/hmac' ? FIXTURE : name);

  it('watches the config file alone, and serves the saved file as the next generation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-options-'));
    try {
      const file = join(dir, 'auth.yaml');
      const yaml = (access: string) =>
        `auth:\n  mode: hmac\n  hmac:\n    secret_env: HMAC_SECRET\nreload:\n  watch: true\naccess:\n  ${access}\n`;
      writeFileSync(file, yaml("'GET /reports': public"));
      let told: (() => void) | null = null;
      const engine = kept(
        await createEngine(await loadConfig(file), {
          env: { HMAC_SECRET: 'fixture-hmac-secret' },
          logger: { info() {}, warn() {}, error() {} },
          importModule,
          onReload: () => told?.(),
        }),
      );
      const reloaded = new Promise<void>((resolve) => (told = resolve));
      writeFileSync(file, yaml("'GET /reports': deny"));
      await reloaded;
      expect(engine.reloadState().generation).toBe(2);
      expect((await judge(engine.current(), requestTo('GET', '/reports'))).step).toBe('denied');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
