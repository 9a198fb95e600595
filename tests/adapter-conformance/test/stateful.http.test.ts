import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createDpopKey,
  startRedis,
  startTestIdentityProvider,
  type DpopKey,
  type RedisServer,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import { ADAPTERS, type RouteSpec, type Served } from './support/adapters.js';
import { comparable, expectTheSame, see, type Seen } from './support/seen.js';

// The conformance cases that carry state: rate limits on a real redis-server, revocation through
// it, DPoP proofs (one per request and server: `htu` names the server), and a reload. Every
// adapter (Express, Fastify, Hono) gets the same config (each its own Redis database, so their
// counts stay apart) and the same requests, and must give the same answers and decisions.

const KEY = 'k3y-for-the-conformance-tests';
const ROUTES: readonly RouteSpec[] = [
  { method: 'POST', path: '/invoke' },
  { method: 'GET', path: '/reports/:id' },
];
const TABLE = { 'POST /invoke': 'authenticated', 'GET /reports/:id': { roles: ['admin'] } };

let idp: TestIdentityProvider;
let redis: RedisServer;
let dpop: DpopKey;
beforeAll(async () => {
  [idp, redis, dpop] = await Promise.all([startTestIdentityProvider(), startRedis(), createDpopKey('ES256')]);
});
afterAll(async () => {
  await Promise.all([idp.close(), redis.stop()]);
});

/** The config of one adapter: `database` keeps its Redis counts apart from the others'. */
function configOf(database: number, extra: object = {}, jwt: object = {}) {
  const raw = idp.config('jwt', { auth: { jwt }, access: TABLE, ...extra });
  const store = `${redis.url.replace(/\/0$/, '')}/${database}`;
  const withStore = JSON.parse(JSON.stringify(raw).replaceAll('"@store"', JSON.stringify(store))) as object;
  return { ...withStore, auth: { ...(raw.auth as object), mode: ['api_key', 'jwt'] } };
}

/** A request of a case, made for one server (a DPoP proof names the server's URL). */
type Request = (url: string) => Promise<{ method: string; path: string; headers: Record<string, string> }>;

const env = () => ({ ...idp.env, SERVICE_API_KEY: KEY });
const call =
  (method: string, path: string, headers: Record<string, string> = {}): Request =>
  async () => ({
    method,
    path,
    headers,
  });

const NAMES = ADAPTERS.map(([name]) => name);

/** Every adapter, each on its own config (`configs[i]` for the i-th); `steps` run in order, each against all. */
async function every(configs: readonly object[], steps: readonly Step[]) {
  const servers: Served[] = [];
  try {
    for (const [at, [, serve]] of ADAPTERS.entries()) servers.push(await serve(configs[at]!, ROUTES, { env: env() }));
    const seen: Seen[][] = [];
    for (const step of steps) {
      if ('act' in step) {
        await step.act(servers);
        continue;
      }
      const row: Seen[] = [];
      for (const served of servers) {
        const { method, path, headers } = await step.request(served.url);
        row.push(await see(served.url, method, path, headers));
      }
      seen.push(row);
    }
    const decisions = servers.map((served) => served.decisions.map(comparable));
    for (const [at, made] of decisions.entries()) {
      expect({ adapter: NAMES[at], made }).toEqual({ adapter: NAMES[at], made: decisions[0] });
    }
    expectTheSame(
      NAMES,
      seen.map((_row, at) => `request ${at + 1}`),
      seen,
      true,
    );
    return seen.map(([first]) => first!);
  } finally {
    await Promise.all(servers.map((served) => served.close()));
  }
}

/** The config of every adapter for one test: Redis databases `first`, `first + 1`, ... */
const configsFrom = (first: number, extra: object = {}, jwt: object = {}) =>
  ADAPTERS.map((_adapter, at) => configOf(first + at, extra, jwt));

/** A step of `every`: a request sent to each server, or something done to all (revoke, reload). */
type Step = { readonly request: Request } | { readonly act: (servers: readonly Served[]) => Promise<unknown> };
const request = (make: Request): Step => ({ request: make });
const act = (run: (servers: readonly Served[]) => Promise<unknown>): Step => ({ act: run });

describe('the same answers and decisions with state: Express, Fastify and Hono', () => {
  it('rate_limit on a redis-server store: the same RateLimit headers, the same 429', async () => {
    const limit = { rate_limit: { store: '@store', requests_per_minute: 2 } };
    const invoke = request(call('POST', '/invoke', { 'X-API-Key': KEY }));
    const seen = await every(configsFrom(1, limit), [invoke, invoke, invoke]);
    expect(seen.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(seen[0]!.headers.ratelimit).not.toBeNull();
  });

  it('revocation.store: a token revoked on each is refused by all with the same 401', async () => {
    const token = await idp.signToken({ sub: 'ada', jti: 'conformance-1', roles: ['admin'] });
    const revocation = { revocation: { store: '@store' } };
    const reports = request(call('GET', '/reports/7', { Authorization: `Bearer ${token}` }));
    const seen = await every(configsFrom(4, revocation), [
      reports,
      act((servers) => Promise.all(servers.map((served) => served.revoke('jti:conformance-1')))),
      reports,
    ]);
    expect(seen.map((answer) => answer.status)).toEqual([200, 401]);
    expect(seen[1]!.body).toBe('{"error":"unauthorized","message":"the token has been revoked"}');
  });

  it('DPoP: the same answers for a bound token with a proof, without one, and with a proof for another URL', async () => {
    const token = await idp.signToken({ sub: 'ada', roles: ['admin'], cnf: { jkt: dpop.jkt } });
    const proved = (method: string, path: string, target = path) =>
      request(async (url) => ({
        method,
        path,
        headers: {
          Authorization: `DPoP ${token}`,
          DPoP: await dpop.proof({ method, url: `${url}${target}`, token }),
        },
      }));
    const cases = [
      proved('GET', '/reports/7'),
      proved('GET', '/reports/7', '/reports/8'),
      request(call('GET', '/reports/7', { Authorization: `DPoP ${token}` })),
      request(call('GET', '/reports/7', { Authorization: `Bearer ${token}` })),
    ];
    const seen = await every(configsFrom(7, {}, { dpop: 'allowed', dpop_algorithms: ['ES256'] }), cases);
    expect(seen.map((answer) => answer.status)).toEqual([200, 401, 401, 401]);
    expect(seen[1]!.headers['www-authenticate']).toContain('error="invalid_dpop_proof"');
  });

  it('reload: every adapter serves the new table at once, with the same answers', async () => {
    const token = await idp.signToken({ sub: 'bob', roles: ['reader'] });
    const reports = request(call('GET', '/reports/7', { Authorization: `Bearer ${token}` }));
    const reader = { ...TABLE, 'GET /reports/:id': { roles: ['reader'] } };
    const seen = await every(configsFrom(10), [
      reports,
      act((servers) =>
        Promise.all(servers.map((served, index) => served.reload({ ...configOf(10 + index), access: reader }))),
      ),
      reports,
    ]);
    expect(seen.map((answer) => answer.status)).toEqual([403, 200]);
  });
});
