import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createDpopKey,
  startRedis,
  startTestIdentityProvider,
  type DpopKey,
  type RedisServer,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import { comparable, see, serveExpress, serveFastify, type RouteSpec, type Seen, type Served } from './support/both.js';

// The conformance cases that carry state: rate limits on a real redis-server, revocation through
// it, DPoP proofs (one per request and server: `htu` names the server), and a reload. Express and
// Fastify get the same config (each its own Redis database, so their counts stay apart) and the
// same requests, and must give the same answers and decisions.

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

/** The config of one adapter: `database` keeps its Redis counts apart from the other's. */
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

/** Both adapters, each on its own config; `steps` run in order, each against both. */
async function both(configs: [object, object], steps: readonly Step[]) {
  const servers: Served[] = [
    await serveExpress(configs[0], ROUTES, { env: env() }),
    await serveFastify(configs[1], ROUTES, { env: env() }),
  ];
  try {
    const seen: [Seen, Seen][] = [];
    for (const step of steps) {
      if ('act' in step) {
        await step.act(servers);
        continue;
      }
      const pair: Seen[] = [];
      for (const served of servers) {
        const { method, path, headers } = await step.request(served.url);
        pair.push(await see(served.url, method, path, headers));
      }
      seen.push(pair as [Seen, Seen]);
    }
    return { seen, decisions: servers.map((served) => served.decisions.map(comparable)) };
  } finally {
    await Promise.all(servers.map((served) => served.close()));
  }
}

/** A step of `both`: a request sent to each server, or something done to both (revoke, reload). */
type Step = { readonly request: Request } | { readonly act: (servers: readonly Served[]) => Promise<unknown> };
const request = (make: Request): Step => ({ request: make });
const act = (run: (servers: readonly Served[]) => Promise<unknown>): Step => ({ act: run });

const expectSame = (seen: [Seen, Seen][]) => {
  for (const [express, fastify] of seen) expect(fastify).toEqual(express);
};

describe('the same answers with state: Express and Fastify', () => {
  it('rate_limit on a redis-server store: the same RateLimit headers, the same 429', async () => {
    const limit = { rate_limit: { store: '@store', requests_per_minute: 2 } };
    const invoke = request(call('POST', '/invoke', { 'X-API-Key': KEY }));
    const { seen, decisions } = await both([configOf(1, limit), configOf(2, limit)], [invoke, invoke, invoke]);
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([200, 200, 429]);
    for (const [express, fastify] of seen) {
      const { 'retry-after': a, ratelimit: r1, ...expressRest } = express.headers;
      const { 'retry-after': b, ratelimit: r2, ...fastifyRest } = fastify.headers;
      // The window's reset counts down in whole seconds: the two servers may be a second apart.
      expect(Math.abs(Number(a ?? 0) - Number(b ?? 0))).toBeLessThanOrEqual(1);
      expect(r2?.replace(/t=\d+/, 't=_')).toBe(r1?.replace(/t=\d+/, 't=_'));
      expect({ ...fastify, headers: fastifyRest }).toEqual({ ...express, headers: expressRest });
    }
    expect(decisions[1]).toEqual(decisions[0]);
  });

  it('revocation.store: a token revoked on each is refused by both with the same 401', async () => {
    const token = await idp.signToken({ sub: 'ada', jti: 'conformance-1', roles: ['admin'] });
    const revocation = { revocation: { store: '@store' } };
    const reports = request(call('GET', '/reports/7', { Authorization: `Bearer ${token}` }));
    const { seen, decisions } = await both(
      [configOf(3, revocation), configOf(4, revocation)],
      [reports, act((servers) => Promise.all(servers.map((served) => served.revoke('jti:conformance-1')))), reports],
    );
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([200, 401]);
    expectSame(seen);
    expect(seen[1]![1].body).toBe('{"error":"unauthorized","message":"the token has been revoked"}');
    expect(decisions[1]).toEqual(decisions[0]);
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
    const config = (database: number) => configOf(database, {}, { dpop: 'allowed', dpop_algorithms: ['ES256'] });
    const { seen, decisions } = await both([config(5), config(6)], cases);
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([200, 401, 401, 401]);
    expectSame(seen);
    expect(seen[1]![1].headers['www-authenticate']).toContain('error="invalid_dpop_proof"');
    expect(decisions[1]).toEqual(decisions[0]);
  });

  it('reload: both serve the new table at once, with the same answers', async () => {
    const token = await idp.signToken({ sub: 'bob', roles: ['reader'] });
    const reports = request(call('GET', '/reports/7', { Authorization: `Bearer ${token}` }));
    const reader = { ...TABLE, 'GET /reports/:id': { roles: ['reader'] } };
    const { seen, decisions } = await both(
      [configOf(7), configOf(8)],
      [
        reports,
        act((servers) =>
          Promise.all(servers.map((served, index) => served.reload({ ...configOf(7 + index), access: reader }))),
        ),
        reports,
      ],
    );
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([403, 200]);
    expectSame(seen);
    expect(decisions[1]).toEqual(decisions[0]);
  });
});
