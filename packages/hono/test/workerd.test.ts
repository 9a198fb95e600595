import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import { build, type Plugin } from 'esbuild';
import { Miniflare } from 'miniflare';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveHono, type ServedHono } from './support/serve.js';

// @authlayer/hono in workerd, the runtime of Cloudflare Workers (through miniflare): the Worker of
// test/workerd/worker.ts, bundled with esbuild as `wrangler` would, authenticates API keys and JWTs
// verified against a JWKS it fetches, and answers what the same app answers on Node.

const KEY = 'workerd-api-key-0123456789';

// What a Worker cannot have: ioredis (TCP sockets, only for a Redis store, which the config names
// not) and node:cluster (rate-limiter-flexible's cluster store). Bare Node built-ins become `node:`.
const workerOnly: Plugin = {
  name: 'worker-only',
  setup(bundler) {
    bundler.onResolve({ filter: /^(ioredis|cluster)$/ }, (args) => ({ path: args.path, namespace: 'absent' }));
    bundler.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} does not run in a Worker`)});`,
      loader: 'js',
    }));
    bundler.onResolve({ filter: /^(crypto|events|util|buffer|stream|net|tls|os|url|string_decoder|dns)$/ }, (args) => ({
      path: `node:${args.path}`,
      external: true,
    }));
  },
};

let idp: TestIdentityProvider;
let out: string;
let worker: Miniflare;
let node: ServedHono;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const config = {
    auth: {
      mode: ['api_key', 'jwt'],
      api_keys: { env_var: 'SERVICE_API_KEY' },
      jwt: { jwks_url: idp.jwksUrl, issuer: idp.issuer, audience: idp.audience, algorithms: ['RS256'] },
    },
    access: { 'POST /invoke': 'authenticated', 'GET /reports/:id': { roles: ['admin'] } },
  };
  out = mkdtempSync(join(tmpdir(), 'authlayer-workerd-'));
  await build({
    entryPoints: [fileURLToPath(new URL('./workerd/worker.ts', import.meta.url))],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outdir: out,
    plugins: [workerOnly],
    external: ['node:*'],
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'import'],
    logLevel: 'silent',
  });
  // Every chunk listed: the engine's `import(name)` of a mode package is a specifier miniflare
  // cannot follow (the Worker hands the modes to the engine instead).
  const files = readdirSync(out).sort((a, b) => (a === 'worker.js' ? -1 : b === 'worker.js' ? 1 : 0));
  worker = new Miniflare({
    modulesRoot: out,
    modules: files.map((file) => ({ type: 'ESModule' as const, path: join(out, file) })),
    compatibilityDate: '2026-07-01',
    compatibilityFlags: ['nodejs_compat'],
    bindings: { AUTHLAYER_CONFIG: JSON.stringify(config), SERVICE_API_KEY: KEY },
  });
  node = await serveHono({ config, env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() }, (app) => {
    app.post('/invoke', (c) => c.json({ auth: c.get('auth') ?? null }));
    app.get('/reports/:id', (c) => c.json({ id: c.req.param('id'), by: c.get('auth')?.userId ?? null }));
  });
});

afterAll(async () => {
  await worker?.dispose();
  await node?.close();
  await idp?.close();
  if (out !== undefined) rmSync(out, { recursive: true, force: true });
});

interface Seen {
  readonly status: number;
  readonly challenge: string | null;
  readonly type: string | null;
  readonly body: string;
}

/** The same request to the Worker and to the app on Node. */
async function both(method: string, path: string, headers: Record<string, string> = {}) {
  const seen = async (res: { status: number; headers: Headers; text(): Promise<string> }): Promise<Seen> => ({
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    type: res.headers.get('content-type'),
    body: await res.text(),
  });
  const inWorker = await seen(await worker.dispatchFetch(`http://localhost${path}`, { method, headers }));
  const onNode = await seen(await fetch(`${node.url}${path}`, { method, headers }));
  return { inWorker, onNode };
}

describe('@authlayer/hono in workerd (miniflare)', () => {
  it('refuses without a credential and with a wrong key, lets the right API key through', async () => {
    const missing = await both('POST', '/invoke');
    expect(missing.inWorker).toEqual(missing.onNode);
    expect([missing.inWorker.status, missing.inWorker.challenge]).toEqual([
      401,
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    ]);
    const wrong = await both('POST', '/invoke', { 'X-API-Key': 'not-the-key-000000' });
    expect(wrong.inWorker).toEqual(wrong.onNode);
    expect(wrong.inWorker.status).toBe(401);
    const right = await both('POST', '/invoke', { 'X-API-Key': KEY });
    expect(right.inWorker).toEqual(right.onNode);
    expect(JSON.parse(right.inWorker.body)).toMatchObject({ auth: { method: 'api_key', userId: 'SERVICE_API_KEY' } });
  });

  it('verifies a JWT against the JWKS it fetched, and applies the table to the route Hono matched', async () => {
    const user = { authorization: `Bearer ${await idp.signToken({ sub: 'ada' })}` };
    const admin = { authorization: `Bearer ${await idp.signToken({ sub: 'root', roles: ['admin'] })}` };
    const cases: [string, string, Record<string, string>, number][] = [
      ['POST', '/invoke', user, 200],
      ['GET', '/reports/7', user, 403],
      ['GET', '/reports/7', admin, 200],
      ['POST', '/invoke', { authorization: `${user.authorization.slice(0, -4)}AAAA` }, 401],
      ['POST', '/invoke', { authorization: `Bearer ${await idp.signToken({ sub: 'ada', exp: 1 })}` }, 401],
    ];
    for (const [method, path, headers, status] of cases) {
      const answers = await both(method, path, headers);
      expect(answers.inWorker).toEqual(answers.onNode);
      expect([method, path, answers.inWorker.status]).toEqual([method, path, status]);
    }
  });
});
