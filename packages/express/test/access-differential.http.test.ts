import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAuthMiddleware } from '../src/index.js';

// A differential test against Express's own router: the app's routes are the access table's
// patterns, each table entry needs a permission of its own, and thousands of spellings of the
// paths are sent. Whenever a request reaches a route handler (seen with a caller holding every
// permission), the same request from a caller holding every permission but that route's own must
// be refused: the route's rule was applied. Express decides which handler runs; authlayer must
// agree for every spelling.

/** [method for express, pattern, mount]: mount = a router mounted there (nested routers). */
const ROUTES: readonly (readonly [string, string, string?])[] = [
  ['get', '/reports/:id'],
  ['post', '/invoke'],
  ['delete', '/users/:id'],
  ['get', '/users/:id/profile'],
  ['get', '/files/*path'],
  ['get', '/docs{/*rest}'],
  ['get', '/a{/:b}/c'],
  ['all', '/internal/*path'],
  ['put', '/tenants/:tenant/items/:item'],
  ['get', '/'],
  ['get', '/v1/:thing', '/api'],
  ['post', '/deep/:id', '/api/nested'],
  ['get', '/', '/api/nested'],
  ['patch', '/data.json'],
  ['get', '/:lang/home'],
];

const keyOf = ([method, pattern, mount]: (typeof ROUTES)[number]) => {
  const full = mount === undefined ? pattern : mount + (pattern === '/' ? '' : pattern);
  return `${method === 'all' ? '*' : method.toUpperCase()} ${full}`;
};
const permission = (index: number) => `r${index}`;

const KEY_ALL = 'key-holding-every-permission-0123';
const keyWithout = (index: number) => `key-without-route-${index}-permission-0123`;

let server: Server;
let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  const all = ROUTES.map((_, index) => permission(index));
  const env: Record<string, string> = { ALL_KEY: KEY_ALL };
  const keys = [{ name: 'all', env_var: 'ALL_KEY', roles: ['all'] }];
  const roles = [{ name: 'all', permissions: all }];
  ROUTES.forEach((_, index) => {
    env[`WITHOUT_${index}_KEY`] = keyWithout(index);
    keys.push({ name: `without-${index}`, env_var: `WITHOUT_${index}_KEY`, roles: [`without-${index}`] });
    roles.push({ name: `without-${index}`, permissions: all.filter((name) => name !== permission(index)) });
  });
  const access = Object.fromEntries(ROUTES.map((route, index) => [keyOf(route), { permissions: [permission(index)] }]));
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key', api_keys: { keys } }, roles, access },
    { env, logger: createCaptureLogger() },
  );
  const app = express();
  app.use(auth.access);
  const routers = new Map<string, express.Router>();
  ROUTES.forEach(([method, pattern, mount], index) => {
    const handler: express.RequestHandler = (_req, res) => {
      res.setHeader('X-Route', String(index));
      res.end();
    };
    if (mount === undefined) {
      (app as unknown as Record<string, (path: string, h: express.RequestHandler) => void>)[method]!(pattern, handler);
      return;
    }
    let router = routers.get(mount);
    if (router === undefined) {
      router = express.Router();
      routers.set(mount, router);
    }
    (router as unknown as Record<string, (path: string, h: express.RequestHandler) => void>)[method]!(pattern, handler);
  });
  // Nested: /api/nested inside /api's router, so two levels of mount paths are stripped.
  app.use('/api', routers.get('/api')!);
  routers.get('/api')!.use('/nested', routers.get('/api/nested')!);
  expect(auth.unmatchedRules(app)).toEqual([]);
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** The route that handled the request (`X-Route`), or null; and the status. */
function send(method: string, path: string, key: string): Promise<{ status: number; route: number | null }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { 'X-API-Key': key } }, (res) => {
      res.resume();
      res.on('end', () => {
        const route = res.headers['x-route'];
        resolve({ status: res.statusCode ?? 0, route: typeof route === 'string' ? Number(route) : null });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

// A seeded generator, so the corpus is the same on every run.
function generator(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASES = [
  '/reports/42',
  '/invoke',
  '/users/7',
  '/users/7/profile',
  '/files/a/b.txt',
  '/docs',
  '/docs/x/y',
  '/a/c',
  '/a/b/c',
  '/internal/x',
  '/internal/a/b',
  '/tenants/t1/items/i1',
  '/',
  '/api/v1/thing',
  '/api/nested/deep/1',
  '/api/nested',
  '/data.json',
  '/en/home',
  '/reports',
  '/api',
];

const MUTATIONS: readonly ((path: string, random: () => number) => string)[] = [
  (path) => path,
  (path) => path.toUpperCase(),
  (path, random) => [...path].map((c) => (random() < 0.5 ? c.toUpperCase() : c)).join(''),
  (path) => `${path}/`,
  (path) => `${path}//`,
  (path) => path.replace('/', '//'),
  (path, random) => {
    const slashes = [...path.matchAll(/\//g)].map((m) => m.index ?? 0);
    const at = slashes[Math.floor(random() * slashes.length)] ?? 0;
    return `${path.slice(0, at)}/${path.slice(at)}`;
  },
  (path) => path.replace(/\/([^/]*)$/, '%2F$1'),
  (path) => path.replace(/\//g, '%2F'),
  (path) => path.replace(/\/([^/]*)$/, '%2f$1'),
  (path) => path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
  (path) => path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
  (path) => path.replace(/\/([^/]*)$/, '%C0%AF$1'),
  (path) => path.replace(/\/([^/]*)$/, '%e0%80%af$1'),
  (path) => path.replace(/^\//, '/./'),
  (path) => `/x/..${path}`,
  (path) => `${path}/.`,
  (path) => `${path}/..`,
  (path) => path.replace(/\/([^/]*)$/, '/%2e%2e/$1'),
  (path) => `${path};x=1`,
  (path) => path.replace(/\/([^/]*)$/, '/;$1'),
  (path) => `${path}%3B`,
  (path) => `${path}%C3%A9`,
  (path) => path.replace(/[a-z]/, '%C4%B1'),
  (path) => `${path}%`,
  (path) => `${path}%zz`,
  (path) => `${path}%00`,
  (path) => `${path}?a=b`,
  (path) => `${path}?/internal/x`,
  (path) => `${path}?`,
  (path) => `${path}#frag`,
  (path) => `${path}%23`,
  (path) => `${path}%20`,
  (path) => `${path}+`,
  (path) => path.replace(/\./, '%2E'),
  (path) => `http://127.0.0.1${path}`,
];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'];

function corpus(size: number): [string, string][] {
  const random = generator(20261125);
  const seen = new Set<string>();
  const out: [string, string][] = [];
  // Every base × mutation × method once, then random compositions of two mutations.
  for (const base of BASES)
    for (const mutate of MUTATIONS)
      for (const method of METHODS) {
        const path = mutate(base, random);
        if (!seen.has(`${method} ${path}`)) {
          seen.add(`${method} ${path}`);
          out.push([method, path]);
        }
      }
  while (out.length < size) {
    const base = BASES[Math.floor(random() * BASES.length)]!;
    const first = MUTATIONS[Math.floor(random() * MUTATIONS.length)]!;
    const second = MUTATIONS[Math.floor(random() * MUTATIONS.length)]!;
    const method = METHODS[Math.floor(random() * METHODS.length)]!;
    const path = second(first(base, random), random);
    if (!path.startsWith('/') && !path.startsWith('http:')) continue;
    if (seen.has(`${method} ${path}`)) continue;
    seen.add(`${method} ${path}`);
    out.push([method, path]);
  }
  return out;
}

describe('auth.access against Express 5 own router', () => {
  it('applies the rule of every route a request reaches, over 10 000 spellings of paths and methods', async () => {
    const requests = corpus(10_000);
    expect(requests.length).toBeGreaterThanOrEqual(10_000);
    const divergences: string[] = [];
    const reached = new Set<number>();
    let handled = 0;
    for (const [method, path] of requests) {
      const withAll = await send(method, path, KEY_ALL);
      if (withAll.route === null) continue;
      handled += 1;
      reached.add(withAll.route);
      const without = await send(method, path, keyWithout(withAll.route));
      if (without.route !== null || without.status !== 403) {
        divergences.push(`${method} ${path}: route ${withAll.route} ran without its rule (${without.status})`);
      }
    }
    expect(divergences).toEqual([]);
    // Not vacuous: thousands of spellings reached handlers, and every route was reached.
    expect(handled).toBeGreaterThan(1_000);
    expect([...reached].sort((a, b) => a - b)).toEqual(ROUTES.map((_, index) => index));
    // Up to 20 000 requests in sequence: ten times slower at load 16 than alone. A safety net only.
  }, 900_000);
});
