import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import type { Context } from 'hono';
import type { AuthDecision } from '../src/index.js';
import {
  comparable,
  see,
  serveExpress,
  serveFastify,
  type ServeOptions,
  type Seen,
  type Served,
} from '../../fastify/test/support/both.js';
import {
  CASES,
  KEY,
  ROUTES,
  TABLE,
  apiKey,
  bearer,
  configOf as corpusConfig,
  signTokens,
  type Case,
  type Tokens,
} from '../../fastify/test/support/corpus.js';
import { serveHono } from './support/serve.js';

// The conformance corpus of Express and Fastify (packages/fastify/test/support/corpus.ts), run
// against all three adapters: the same config and requests must get the same status,
// WWW-Authenticate, Retry-After, RateLimit-*, content type and body bytes, and the same decisions.

let idp: TestIdentityProvider;
let tokens: Tokens;
let now: number;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  ({ tokens, now } = await signTokens(idp));
});
afterAll(async () => idp.close());

const configOf = (access: object, extra: object = {}) => corpusConfig(idp, access, extra);

/** The corpus's routes on Hono (every one answers the caller), a guard on each when given. */
async function serveHonoCorpus(config: object, options: ServeOptions): Promise<Served> {
  const decisions: AuthDecision[] = [];
  const served = await serveHono(
    {
      config,
      env: options.env ?? {},
      ...(options.now === undefined ? {} : { now: options.now }),
      logger: createCaptureLogger(),
      onDecision: (decision) => decisions.push(decision),
    },
    (app, auth) => {
      // The app's own 200 as Express's `res.json` writes it (Hono's `c.json` says no charset): the
      // corpus compares the whole answer, and this one is the app's, not the adapter's.
      const answer = (c: Context) =>
        c.body(JSON.stringify({ auth: c.get('auth') ?? null }), 200, {
          'Content-Type': 'application/json; charset=utf-8',
        });
      for (const route of ROUTES) {
        const method = route.method.toLowerCase() as 'get';
        if (options.guard === undefined) app[method](route.path, answer);
        else app[method](route.path, auth.requireAccess(options.guard), answer);
      }
      expect(auth.unmatchedRules(app)).toEqual([]);
    },
  );
  return {
    url: served.url,
    decisions,
    revoke: (entry) => served.auth.revoke(entry),
    reload: (next) => served.auth.reload(next),
    close: () => served.close(),
  };
}

/** The three adapters on the same config; each case sent to each, in order. */
async function three(config: object, cases: readonly Case[], guard?: object) {
  const env = { ...idp.env, SERVICE_API_KEY: KEY };
  const options = { env, now: () => now, ...(guard === undefined ? {} : { guard }) };
  const servers: Served[] = [
    await serveExpress(config, ROUTES, options),
    await serveFastify(config, ROUTES, options),
    await serveHonoCorpus(config, options),
  ];
  try {
    const seen: Seen[][] = [];
    for (const each of cases) {
      const headers = each.headers?.(tokens) ?? {};
      const row: Seen[] = [];
      for (const served of servers) row.push(await see(served.url, each.method, each.path, headers));
      seen.push(row);
    }
    return { seen, decisions: servers.map((served) => served.decisions.map(comparable)) };
  } finally {
    await Promise.all(servers.map((served) => served.close()));
  }
}

/** Hono's answer to each case is Express's and Fastify's, byte for byte (a framework's own 404 aside). */
function expectTheSame(cases: readonly Case[], seen: readonly Seen[][]) {
  cases.forEach((each, index) => {
    const [express, fastify, hono] = seen[index]!;
    if (express!.status === 404) return expect([fastify!.status, hono!.status]).toEqual([404, 404]);
    expect({ case: each.name, ...hono }).toEqual({ case: each.name, ...express });
    expect({ case: each.name, ...fastify }).toEqual({ case: each.name, ...express });
  });
}

describe('the same config, the same answers: Express, Fastify and Hono', () => {
  it.each([
    ['default: authenticated', {}, [200, 401, 403]],
    ['default: deny', { default: 'deny' }, [200, 401, 403]],
    ['report_only', { default: 'deny', report_only: true }, [200, 401, 404]],
  ])('%s: every case answers the same, and the decisions are the same', async (_name, policy, expected) => {
    const { seen, decisions } = await three(configOf({ ...TABLE, ...policy }), CASES);
    expectTheSame(CASES, seen);
    expect(decisions[2]).toEqual(decisions[0]);
    expect(decisions[1]).toEqual(decisions[0]);
    expect(decisions[0]!.length).toBeGreaterThan(10);
    expect(new Set(seen.map(([express]) => express!.status))).toEqual(new Set(expected));
  });

  it('rate_limit failed_auth_per_minute: the same 401s, then the same 429 with Retry-After', async () => {
    const wrong: Case = { name: 'wrong', method: 'POST', path: '/invoke', headers: () => ({ 'X-API-Key': 'wrong' }) };
    const right: Case = { name: 'right', method: 'POST', path: '/invoke', headers: apiKey };
    const config = configOf(TABLE, { rate_limit: { failed_auth_per_minute: 2 } });
    const { seen, decisions } = await three(config, [wrong, wrong, right]);
    expect(seen.map((row) => row.map((answer) => answer.status))).toEqual([
      [401, 401, 401],
      [401, 401, 401],
      [429, 429, 429],
    ]);
    for (const [express, , hono] of seen) {
      // Retry-After counts down in whole seconds: two servers may be a second apart.
      const { 'retry-after': a, ...expressRest } = express!.headers;
      const { 'retry-after': b, ...honoRest } = hono!.headers;
      expect(Math.abs(Number(a ?? 0) - Number(b ?? 0))).toBeLessThanOrEqual(1);
      expect({ ...hono, headers: honoRest }).toEqual({ ...express, headers: expressRest });
    }
    expect(decisions[2]).toEqual(decisions[0]);
  });

  it('rate_limit requests_per_minute: the same RateLimit headers on the answer, then the same 429', async () => {
    const right: Case = { name: 'right', method: 'POST', path: '/invoke', headers: apiKey };
    const config = configOf(TABLE, { rate_limit: { requests_per_minute: 2 } });
    const { seen } = await three(config, [right, right, right]);
    expect(seen.map((row) => row[2]!.status)).toEqual([200, 200, 429]);
    for (const [express, , hono] of seen) expect(hono).toEqual(express);
    expect(seen[0]![2]!.headers['ratelimit-policy']).not.toBeNull();
  });

  it('requireAccess after the table: the same 401s and 403s, and its refusal is the one decision', async () => {
    const cases: readonly Case[] = [
      { name: 'public route, no caller', method: 'GET', path: '/public' },
      { name: 'optional route, anonymous', method: 'GET', path: '/me' },
      { name: 'API key without the role', method: 'POST', path: '/invoke', headers: apiKey },
      { name: 'JWT without the role', method: 'POST', path: '/invoke', headers: bearer('user') },
      { name: 'JWT with the role', method: 'POST', path: '/invoke', headers: bearer('admin') },
    ];
    const { seen, decisions } = await three(configOf(TABLE), cases, { roles: ['admin'] });
    expectTheSame(cases, seen);
    expect(seen.map((row) => row[2]!.status)).toEqual([401, 401, 403, 403, 200]);
    expect(decisions[2]).toEqual(decisions[0]);
    expect(decisions[2]!.map((d) => d.outcome)).toEqual(['refused', 'forbidden', 'forbidden', 'allowed']);
  });

  it('claims and step-up with resource metadata: the same answers and decisions', async () => {
    const cases = CASES.filter((each) => ['/gold', '/stepped'].includes(each.path));
    const config = configOf(TABLE, { resource: { identifier: 'https://api.example.com' } });
    const { seen, decisions } = await three(config, cases);
    expectTheSame(cases, seen);
    expect(seen.map((row) => row[2]!.status)).toEqual([200, 403, 403, 200, 401, 401, 401]);
    expect(decisions[2]).toEqual(decisions[0]);
  });

  it('requireAccess with acr and maxAge: the same 401 step-up, and its refusal is the one decision', async () => {
    const cases: readonly Case[] = [
      { name: 'recent enough', method: 'POST', path: '/invoke', headers: bearer('mfa') },
      { name: 'too old', method: 'POST', path: '/invoke', headers: bearer('stale') },
      { name: 'an API key', method: 'POST', path: '/invoke', headers: apiKey },
    ];
    const { seen, decisions } = await three(configOf(TABLE), cases, { acr: ['urn:mfa'], maxAge: 300 });
    expectTheSame(cases, seen);
    expect(seen.map((row) => row[2]!.status)).toEqual([200, 401, 401]);
    expect(decisions[2]).toEqual(decisions[0]);
  });
});
