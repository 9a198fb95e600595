// A Hono app outside the workspace, as a user builds it: the packed tarballs of core, engine,
// api-key and hono only (hono and @hono/node-server from the registry), one `npm install`.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packPublicPackages } from '../scripts/pack.mjs';
import { baseEnv, startServer, type RunningServer } from './support/start-server.js';

const run = promisify(execFile);
const API_KEY = 'outside-hono-key-5b2e8d';
const PACKAGES = ['@authlayer/core', '@authlayer/engine', '@authlayer/api-key', '@authlayer/hono'];

const CONFIG = `auth:
  mode: api_key
  api_keys:
    env_var: SERVICE_API_KEY
access:
  'POST /invoke': authenticated
  'GET /health': public
`;

/** The app as packages/hono/README.md shows it, failing start-up on keys that name no route. */
const SERVER = `import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { fileURLToPath } from 'node:url';
import authlayer from '@authlayer/hono';
import { loadConfig } from '@authlayer/core';

const app = new Hono();
const auth = await authlayer({ config: await loadConfig(fileURLToPath(new URL('./authlayer.yaml', import.meta.url))) });
app.use(auth);
app.post('/invoke', (c) => c.json(c.get('auth')));
app.get('/health', (c) => c.json({ ok: true }));
const unmatched = auth.unmatchedRules(app);
if (unmatched.length > 0) throw new Error('access keys that name no route: ' + unmatched.join(', '));
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log('listening on port ' + info.port));
process.once('SIGTERM', () => server.close());
`;

let work: string;
let app: string;
let server: RunningServer;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'authlayer-outside-hono-'));
  const destination = join(work, 'tarballs');
  mkdirSync(destination);
  const tarballs = packPublicPackages(destination, PACKAGES).map((pkg) => pkg.tarball);
  app = join(work, 'app');
  mkdirSync(app);
  const manifest = { name: 'outside-hono-app', version: '1.0.0', private: true, type: 'module' };
  writeFileSync(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(app, 'authlayer.yaml'), CONFIG);
  writeFileSync(join(app, 'server.mjs'), SERVER);
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...tarballs,
      'hono@^4',
      '@hono/node-server',
    ],
    { cwd: app, env: { ...process.env, npm_config_update_notifier: 'false' }, maxBuffer: 16 * 1024 * 1024 },
  );
  server = await startServer(['server.mjs'], {
    cwd: app,
    env: { ...baseEnv(), SERVICE_API_KEY: API_KEY },
    listening: /listening on port (\d+)/,
    stream: 'stdout',
  });
  // Packing and one npm install: a safety net only (the suite waits on events).
}, 900_000);

afterAll(async () => {
  await server?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

const invoke = (headers: Record<string, string> = {}) => fetch(`${server.url}/invoke`, { method: 'POST', headers });

describe('a Hono app with core, engine, api-key and hono from their tarballs', () => {
  it('installs exactly the four authlayer packages it asked for, with a valid dependency tree', async () => {
    expect(readdirSync(join(app, 'node_modules', '@authlayer')).sort()).toEqual(['api-key', 'core', 'engine', 'hono']);
    // npm ls exits non-zero on a missing or invalid dependency.
    const { stdout } = await run('npm', ['ls', '--all'], { cwd: app });
    expect(stdout.toString()).not.toContain('workspace:');
  });

  it('answers 401 with the challenge without a key, 200 with the AuthContext with it, public without one', async () => {
    const refused = await invoke();
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^ApiKey realm="authlayer", header="X-API-Key"/);
    expect(await refused.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
    const ok = await invoke({ 'X-API-Key': API_KEY });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ method: 'api_key', userId: 'SERVICE_API_KEY', roles: [] });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    for (const output of [server.stdout(), server.stderr()]) expect(output).not.toContain(API_KEY);
  });
});
