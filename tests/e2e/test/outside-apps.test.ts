// Users take authlayer from the registry: apps in a temp folder OUTSIDE the workspace install only
// the packed tarballs they need (plus express 5) with npm, and run the contract's Library API.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { hasJwtPackage, packPublicPackages, REPO_ROOT } from '../scripts/pack.mjs';
import { createOutsideApp } from './support/outside-app.js';
import { README, readmeBlock } from './support/readme.js';
import { baseEnv, startServer, type RunningServer } from './support/start-server.js';

const run = promisify(execFile);
// Chosen at collection time: the JWT app joins as soon as packages/jwt is in the workspace.
const WITH_JWT = hasJwtPackage();
const API_KEY = 'outside-app-key-7f3c9a';
const WRONG_KEY = 'not-the-key-0000';
const LISTENING = /listening on port (\d+)/;

const API_KEY_CONFIG = `auth:\n  mode: api_key\n  api_keys:\n    env_var: SERVICE_API_KEY\n`;
const FASTIFY_CONFIG = [
  API_KEY_CONFIG.trimEnd(),
  'roles:',
  '  - name: reader',
  '    permissions: [reports:read]',
  'access:',
  "  'POST /invoke': authenticated",
  "  'GET /reports/:id': { permissions: [reports:read] }",
  "  'GET /health': public",
  '',
].join('\n');
const JWT_CONFIG = [
  'auth:',
  '  mode: jwt',
  '  jwt:',
  '    public_key_env: JWT_PUBLIC_KEY',
  '    issuer: https://issuer.example',
  '    audience: outside-app',
  '',
].join('\n');

let work: string;
const tarballs: Record<string, string> = {};
const apps: Record<string, string> = {};
const servers: RunningServer[] = [];

function invoke(server: RunningServer, headers: Record<string, string>) {
  return fetch(`${server.url}/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: 'hello' }),
  });
}

async function start(app: string, env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer(['server.mjs'], {
    cwd: apps[app]!,
    env: { ...baseEnv(), ...env },
    listening: LISTENING,
    stream: 'stdout',
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'authlayer-outside-'));
  const destination = join(work, 'tarballs');
  mkdirSync(destination);
  for (const pkg of packPublicPackages(destination)) tarballs[pkg.name] = pkg.tarball;
  // Express depends on the engine, as fastify does: its tarball joins every Express app's install.
  const adapter = ['core', 'engine', 'express'].map((name) => tarballs[`@authlayer/${name}`]!);
  const wanted = {
    'api-key': [...adapter, tarballs['@authlayer/api-key']!],
    fastify: ['core', 'engine', 'api-key', 'fastify'].map((name) => tarballs[`@authlayer/${name}`]!),
    'jwt-missing': [...adapter, tarballs['@authlayer/api-key']!],
    ...(WITH_JWT
      ? {
          jwt: [
            ...adapter,
            tarballs['@authlayer/jwt']!,
            // A dependency of jwt, not yet on the registry: installed from its tarball too.
            tarballs['@authlayer/sender-constraint']!,
          ],
        }
      : {}),
  };
  // One npm install per app, in parallel, sharing npm's cache.
  await Promise.all(
    Object.entries(wanted).map(async ([app, files]) => {
      apps[app] = join(work, app);
      const config = { 'api-key': API_KEY_CONFIG, fastify: FASTIFY_CONFIG }[app] ?? JWT_CONFIG;
      await createOutsideApp(apps[app], files, config, app === 'fastify' ? 'fastify' : 'express');
    }),
  );
  // Packing and npm installs: about a minute alone on 2 cores, many at load 16. A safety net only.
}, 900_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('an app with core, engine, express and api-key from their tarballs', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start('api-key', { SERVICE_API_KEY: API_KEY });
  });

  it('installs exactly the four packages it asked for, with a valid dependency tree', async () => {
    expect(readdirSync(join(apps['api-key']!, 'node_modules', '@authlayer')).sort()).toEqual([
      'api-key',
      'core',
      'engine',
      'express',
    ]);
    // npm ls exits non-zero on a missing or invalid dependency (an optional peer may be missing).
    const { stdout } = await run('npm', ['ls', '--all'], { cwd: apps['api-key']! });
    expect(stdout.toString()).not.toContain('workspace:');
  });

  it('answers 200 with the AuthContext for the right key', async () => {
    const response = await invoke(server, { 'X-API-Key': API_KEY });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(
      expect.objectContaining({ method: 'api_key', roles: [], permissions: [], scopes: [], tenantId: null }),
    );
  });

  it('answers 200 for the key as a Bearer token', async () => {
    const response = await invoke(server, { Authorization: `Bearer ${API_KEY}` });
    expect(response.status).toBe(200);
  });

  it('answers 401 with the JSON body and a challenge for a wrong key, and never echoes it', async () => {
    const response = await invoke(server, { 'X-API-Key': WRONG_KEY });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^ApiKey realm="authlayer", header="X-API-Key"/);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: 'unauthorized', message: expect.any(String) });
    for (const output of [text, server.stdout(), server.stderr()]) {
      expect(output).not.toContain(WRONG_KEY);
      expect(output).not.toContain(API_KEY);
    }
  });

  it('answers 401 without a key', async () => {
    expect((await invoke(server, {})).status).toBe(401);
  });

  it('guards a route: an authenticated caller without the permission gets 403 forbidden', async () => {
    const response = await fetch(`${server.url}/guarded`, { method: 'POST', headers: { 'X-API-Key': API_KEY } });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: 'forbidden', message: 'the permission invoke is required' });
  });

  it('auth.optional: anonymous without credentials, 401 for a wrong key', async () => {
    const anonymous = await fetch(`${server.url}/me`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual(expect.objectContaining({ method: 'none', userId: null }));
    expect((await fetch(`${server.url}/me`, { headers: { 'X-API-Key': WRONG_KEY } })).status).toBe(401);
  });

  // Bounded by tsc's own exit (a failure rejects at once), not by a clock: 16.5 s alone, over the
  // old 60 s at load 16. The suite's 10-minute timeout only catches a hang.
  it('type-checks a TypeScript app against the packed types (req.auth without a cast, guards, auth.optional, ForbiddenError)', async () => {
    const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: apps['api-key']! })).resolves.toBeDefined();
  });
});

describe('a Fastify app with core, engine, api-key and fastify from their tarballs', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start('fastify', { SERVICE_API_KEY: API_KEY });
  });

  it('installs exactly the four packages it asked for', () => {
    expect(readdirSync(join(apps.fastify!, 'node_modules', '@authlayer')).sort()).toEqual([
      'api-key',
      'core',
      'engine',
      'fastify',
    ]);
  });

  it('answers as the Express adapter does: 200 with the AuthContext, 401 with the challenge, 403, public', async () => {
    const ok = await invoke(server, { 'X-API-Key': API_KEY });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ method: 'api_key', userId: 'SERVICE_API_KEY', roles: [] });
    const refused = await invoke(server, { 'X-API-Key': WRONG_KEY });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^ApiKey realm="authlayer", header="X-API-Key"/);
    expect(await refused.json()).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    const forbidden = await fetch(`${server.url}/reports/7`, { headers: { 'X-API-Key': API_KEY } });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: 'forbidden' });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

describe('the README\'s "Use it in your own app" snippet, run as pasted', () => {
  let server: RunningServer;
  beforeAll(async () => {
    // A folder inside the api-key app: it shares that app's node_modules and "type": "module".
    const dir = join(apps['api-key']!, 'readme');
    mkdirSync(dir);
    writeFileSync(join(dir, 'service.yaml'), readmeBlock('Put a config beside it', 'yaml'));
    writeFileSync(join(dir, 'server.js'), readmeBlock('tests/e2e/test/outside-apps.test.ts runs this block', 'js'));
    server = await startServer(['server.js'], {
      cwd: dir,
      env: { ...baseEnv(), BILLING_API_KEY: API_KEY, DASHBOARD_API_KEY: WRONG_KEY.repeat(2), PORT: '0' },
      listening: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      stream: 'stdout',
    });
    servers.push(server);
  });

  it('tells the user to set "type": "module"', () => {
    expect(README).toContain('npm pkg set type=module');
  });

  it('applies the access table with app.use(auth.access): 200, 403 for a client without the permission, 401, public, deny, 404', async () => {
    const ok = await invoke(server, { 'x-api-key': API_KEY });
    expect([ok.status, ((await ok.json()) as { userId: string }).userId]).toEqual([200, 'billing']);
    const forbidden = await invoke(server, { 'x-api-key': WRONG_KEY.repeat(2) });
    expect([forbidden.status, await forbidden.json()]).toEqual([
      403,
      { error: 'forbidden', message: 'the permission invoke is required' },
    ]);
    expect((await invoke(server, {})).status).toBe(401);
    expect((await fetch(`${server.url}/STATUS/`)).status).toBe(200);
    // The whole subtree, /admin itself too (the README's "* /admin{/*path}": deny).
    for (const path of ['/admin', '/admin/', '/admin/users']) {
      expect((await fetch(`${server.url}${path}`, { headers: { 'x-api-key': API_KEY } })).status).toBe(403);
    }
    expect((await fetch(`${server.url}/nope`)).status).toBe(401);
    const missing = await fetch(`${server.url}/nope`, { headers: { 'x-api-key': API_KEY } });
    expect([missing.status, await missing.json()]).toEqual([404, { error: 'not_found', message: 'no such resource' }]);
  });

  it('answers a malformed body with the JSON 400, not an HTML page with a stack trace', async () => {
    const res = await fetch(`${server.url}/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
      body: '{"query":',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'invalid_request', message: 'the request body is not valid JSON' });
  });
});

describe('ESM-only packages seen from an app', () => {
  const NAMES = ['@authlayer/core', '@authlayer/express', '@authlayer/api-key'];
  const CJS = `const out = {};
for (const name of ${JSON.stringify(NAMES)}) {
  try { out[name] = { loaded: Object.keys(require(name)).sort() }; }
  catch (error) { out[name] = { code: error.code, message: String(error.message).split('\\n')[0] }; }
}
console.log(JSON.stringify(out));
`;
  const ESM = `const out = {};
for (const name of ${JSON.stringify(NAMES)}) out[name] = { loaded: Object.keys(await import(name)).sort() };
console.log(JSON.stringify(out));
`;
  const load = async (file: string, flags: string[] = []) => {
    const { stdout } = await run(process.execPath, [...flags, file], { cwd: apps['api-key']! });
    return JSON.parse(stdout.toString()) as Record<string, { loaded?: string[]; code?: string; message?: string }>;
  };
  beforeAll(() => {
    writeFileSync(join(apps['api-key']!, 'load.cjs'), CJS);
    writeFileSync(join(apps['api-key']!, 'load.mjs'), ESM);
  });

  it('import works', async () => {
    const result = await load('load.mjs');
    expect(result['@authlayer/core']!.loaded).toEqual(expect.arrayContaining(['loadConfig', 'parseAuthConfig']));
    expect(result['@authlayer/express']!.loaded).toEqual(expect.arrayContaining(['createAuthMiddleware']));
    expect(result['@authlayer/api-key']!.loaded).toEqual(expect.arrayContaining(['createHandler']));
  });

  // Node 20.19+ and 22.12+ load ESM through require() (process.features.require_module).
  // Without that feature (older Node 20, or switched off) require fails at the call with
  // ERR_REQUIRE_ESM naming the package, not somewhere deep inside: the README's promise.
  const requireModuleFlag = process.allowedNodeEnvironmentFlags.has('--experimental-require-module')
    ? ['--no-experimental-require-module']
    : [];
  it('require without require(esm) fails with ERR_REQUIRE_ESM for each package', async () => {
    const result = await load('load.cjs', requireModuleFlag);
    for (const name of NAMES) {
      expect(result[name]).toEqual({ code: 'ERR_REQUIRE_ESM', message: expect.stringContaining(name) });
    }
  });

  // Asked of a real node process: jest's sandboxed `process` does not carry every feature flag.
  const nodeHasRequireModule =
    spawnSync(process.execPath, ['-p', 'process.features.require_module === true'], {
      encoding: 'utf8',
    }).stdout.trim() === 'true';
  if (nodeHasRequireModule) {
    it('require works on a Node.js with require(esm)', async () => {
      const [cjs, esm] = await Promise.all([load('load.cjs'), load('load.mjs')]);
      expect(cjs).toEqual(esm);
    });
  }
});

describe('an app with a JWT config but without @authlayer/jwt', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start('jwt-missing', {});
  });

  it('warns on stderr that @authlayer/jwt is missing and requests are NOT authenticated', () => {
    expect(server.stderr()).toMatch(/@authlayer\/jwt is not installed.*requests are NOT authenticated/);
  });

  it('lets a request through with the anonymous context', async () => {
    const response = await invoke(server, {});
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(expect.objectContaining({ method: 'none', userId: null }));
  });

  it('keeps a guarded route closed: the no-auth fallback grants nothing (403)', async () => {
    const response = await fetch(`${server.url}/guarded`, { method: 'POST' });
    expect(response.status).toBe(403);
  });

  // The same app, asked in its own node process with other configs, @authlayer/jwt really absent.
  const tryConfig = async (config: object) => {
    const script = `import { createAuthMiddleware } from '@authlayer/express';
const auth = await createAuthMiddleware(${JSON.stringify(config)}).catch((error) => ({ failed: error.name + ': ' + error.message }));
console.log(JSON.stringify(auth.failed ?? { methods: auth.methods }));`;
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: apps['jwt-missing']!,
      env: { ...baseEnv(), SERVICE_API_KEY: API_KEY },
    });
    return { result: JSON.parse(stdout.toString()) as unknown, stderr: stderr.toString() };
  };
  const jwt = { public_key_env: 'JWT_PUBLIC_KEY' };

  it('with auth.fallback: refuse, refuses to start instead of failing open', async () => {
    const { result } = await tryConfig({ auth: { mode: 'jwt', fallback: 'refuse', jwt } });
    expect(result).toBe(
      'ConfigError: auth.mode: the package @authlayer/jwt is not installed and auth.fallback is refuse',
    );
  });

  it('with auth.mode [api_key, jwt], leaves only jwt out, with a warning naming it', async () => {
    const { result, stderr } = await tryConfig({ auth: { mode: ['api_key', 'jwt'], jwt } });
    expect(result).toEqual({ methods: ['api_key'] });
    expect(stderr).toMatch(/auth\.mode lists jwt but the package @authlayer\/jwt is not installed: jwt is left out/);
  });
});

if (WITH_JWT) {
  describe('an app with core, express and jwt from their tarballs', () => {
    let server: RunningServer;
    let token: string;
    let forged: string;
    beforeAll(async () => {
      const signer = await generateKeyPair('RS256', { extractable: true });
      const stranger = await generateKeyPair('RS256');
      const mint = (key: CryptoKey) =>
        new SignJWT({ email: 'ada@example.com', roles: ['admin'] })
          .setProtectedHeader({ alg: 'RS256' })
          .setSubject('user-1')
          .setIssuer('https://issuer.example')
          .setAudience('outside-app')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(key);
      [token, forged] = await Promise.all([mint(signer.privateKey), mint(stranger.privateKey)]);
      server = await start('jwt', { JWT_PUBLIC_KEY: await exportSPKI(signer.publicKey) });
    });

    it('answers 200 with the token identity', async () => {
      const response = await invoke(server, { Authorization: `Bearer ${token}` });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(
        expect.objectContaining({ method: 'jwt', userId: 'user-1', email: 'ada@example.com', roles: ['admin'] }),
      );
    });

    it('answers 401 with an RFC 6750 challenge for a token signed by another key', async () => {
      const response = await invoke(server, { Authorization: `Bearer ${forged}` });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="authlayer", error="invalid_token"/);
      expect(server.stderr()).not.toContain(forged);
    });
  });
}
