import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import { comparable, see, serveExpress, serveFastify, type Seen, type Served } from './support/both.js';
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
} from './support/corpus.js';

// One case list, two adapters: the same config and the same requests must get the same answers
// (status, WWW-Authenticate, Retry-After, RateLimit-*, content type, body bytes) and the same
// decisions, from @authlayer/express (auth.access before the routes) and @authlayer/fastify.

let idp: TestIdentityProvider;
let tokens: Tokens;
let now: number;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  ({ tokens, now } = await signTokens(idp));
});
afterAll(async () => idp.close());

const configOf = (access: object, extra: object = {}) => corpusConfig(idp, access, extra);

/** Both adapters on the same config; each case sent to both, in order. */
async function both(config: object, cases: readonly Case[], guard?: object) {
  const env = { ...idp.env, SERVICE_API_KEY: KEY };
  const options = { env, now: () => now, ...(guard === undefined ? {} : { guard }) };
  const servers: Served[] = [await serveExpress(config, ROUTES, options), await serveFastify(config, ROUTES, options)];
  try {
    const seen: [Seen, Seen][] = [];
    for (const each of cases) {
      const headers = each.headers?.(tokens) ?? {};
      seen.push([
        await see(servers[0]!.url, each.method, each.path, headers),
        await see(servers[1]!.url, each.method, each.path, headers),
      ]);
    }
    return { seen, decisions: servers.map((served) => served.decisions.map(comparable)) };
  } finally {
    await Promise.all(servers.map((served) => served.close()));
  }
}

describe('the same config, the same answers: Express and Fastify', () => {
  it.each([
    ['default: authenticated', {}, [200, 401, 403]],
    ['default: deny', { default: 'deny' }, [200, 401, 403]],
    ['report_only', { default: 'deny', report_only: true }, [200, 401, 404]],
  ])('%s: every case answers the same, and the decisions are the same', async (_name, policy, expected) => {
    const { seen, decisions } = await both(configOf({ ...TABLE, ...policy }), CASES);
    CASES.forEach((each, index) => {
      const [express, fastify] = seen[index]!;
      // The request that no route serves: the frameworks' own 404s differ; a refusal may not.
      if (express.status === 404) return expect(fastify.status).toBe(404);
      expect({ case: each.name, ...fastify }).toEqual({ case: each.name, ...express });
    });
    expect(decisions[1]).toEqual(decisions[0]);
    expect(decisions[0]!.length).toBeGreaterThan(10);
    // The case list reaches every kind of answer, so that agreeing means something.
    expect(new Set(seen.map(([express]) => express.status))).toEqual(new Set(expected));
  });

  it("the answers are the contract's (a sample of what both gave)", async () => {
    const { seen } = await both(configOf(TABLE), CASES.slice(0, 3));
    const [refused, wrong, allowed] = seen.map(([, fastify]) => fastify);
    expect(refused).toMatchObject({
      status: 401,
      body: '{"error":"unauthorized","message":"no credentials were sent"}',
    });
    expect(refused!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(wrong!.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(allowed!.status).toBe(200);
    expect(JSON.parse(allowed!.body)).toMatchObject({ auth: { method: 'api_key', userId: 'SERVICE_API_KEY' } });
  });

  it('rate_limit failed_auth_per_minute: the same 401s, then the same 429 with Retry-After', async () => {
    const wrong: Case = { name: 'wrong', method: 'POST', path: '/invoke', headers: () => ({ 'X-API-Key': 'wrong' }) };
    const right: Case = { name: 'right', method: 'POST', path: '/invoke', headers: apiKey };
    const { seen, decisions } = await both(configOf(TABLE, { rate_limit: { failed_auth_per_minute: 2 } }), [
      wrong,
      wrong,
      right,
    ]);
    expect(seen.map(([express, fastify]) => [express.status, fastify.status])).toEqual([
      [401, 401],
      [401, 401],
      [429, 429],
    ]);
    for (const [express, fastify] of seen) {
      // Retry-After counts down in whole seconds: the two servers may be a second apart.
      const { 'retry-after': a, ...expressRest } = express.headers;
      const { 'retry-after': b, ...fastifyRest } = fastify.headers;
      expect(Math.abs(Number(a ?? 0) - Number(b ?? 0))).toBeLessThanOrEqual(1);
      expect({ ...fastify, headers: fastifyRest }).toEqual({ ...express, headers: expressRest });
    }
    expect(seen[2]![1].headers['retry-after']).toMatch(/^\d+$/);
    expect(decisions[1]).toEqual(decisions[0]);
  });

  it('rate_limit requests_per_minute: the same RateLimit headers, then the same 429', async () => {
    const right: Case = { name: 'right', method: 'POST', path: '/invoke', headers: apiKey };
    const { seen } = await both(configOf(TABLE, { rate_limit: { requests_per_minute: 2 } }), [right, right, right]);
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([200, 200, 429]);
    for (const [express, fastify] of seen) {
      expect(fastify.headers['ratelimit-policy']).toBe(express.headers['ratelimit-policy']);
      expect(fastify.headers.ratelimit).toBe(express.headers.ratelimit);
      expect(fastify.body).toBe(express.body);
    }
    expect(seen[0]![1].headers['ratelimit-policy']).not.toBeNull();
  });

  it('requireAccess after the table: the same 401s and 403s, and its refusal is the one decision', async () => {
    const cases: readonly Case[] = [
      { name: 'public route, no caller', method: 'GET', path: '/public' },
      { name: 'optional route, anonymous', method: 'GET', path: '/me' },
      { name: 'API key without the role', method: 'POST', path: '/invoke', headers: apiKey },
      { name: 'JWT without the role', method: 'POST', path: '/invoke', headers: bearer('user') },
      { name: 'JWT with the role', method: 'POST', path: '/invoke', headers: bearer('admin') },
    ];
    const { seen, decisions } = await both(configOf(TABLE), cases, { roles: ['admin'] });
    cases.forEach((each, index) => {
      const [express, fastify] = seen[index]!;
      expect({ case: each.name, ...fastify }).toEqual({ case: each.name, ...express });
    });
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([401, 401, 403, 403, 200]);
    expect(decisions[1]).toEqual(decisions[0]);
    // One decision per request that was decided (the public route decides nothing).
    expect(decisions[1]!.map((d) => d.outcome)).toEqual(['refused', 'forbidden', 'forbidden', 'allowed']);
  });

  it('claims and step-up: the answers the contract gives, resource_metadata included, on both', async () => {
    const cases = CASES.filter((each) => ['/gold', '/stepped'].includes(each.path));
    const config = configOf(TABLE, { resource: { identifier: 'https://api.example.com' } });
    const { seen, decisions } = await both(config, cases);
    cases.forEach((each, index) => {
      const [express, fastify] = seen[index]!;
      expect({ case: each.name, ...fastify }).toEqual({ case: each.name, ...express });
    });
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([200, 403, 403, 200, 401, 401, 401]);
    const [, mismatch, , , stale] = seen.map(([, fastify]) => fastify);
    expect(mismatch!.body).toBe('{"error":"forbidden","message":"the claim org.tier does not have an accepted value"}');
    expect(mismatch!.headers['www-authenticate']).toBeNull();
    expect(stale!.body).toBe(
      '{"error":"unauthorized","message":"a stronger or more recent authentication is required"}',
    );
    expect(stale!.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="insufficient_user_authentication", error_description="a stronger or more ' +
        'recent authentication is required", acr_values="urn:mfa", max_age=300, ' +
        'resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"',
    );
    expect(decisions[1]).toEqual(decisions[0]);
    expect(decisions[1]!.map((d) => d.reason)).toEqual([
      null,
      'claim_mismatch',
      'claim_mismatch',
      null,
      'step_up_required',
      'step_up_required',
      'step_up_required',
    ]);
  });

  it('requireAccess with acr and maxAge: the same 401 step-up, and its refusal is the one decision', async () => {
    const cases: readonly Case[] = [
      { name: 'recent enough', method: 'POST', path: '/invoke', headers: bearer('mfa') },
      { name: 'too old', method: 'POST', path: '/invoke', headers: bearer('stale') },
      { name: 'an API key', method: 'POST', path: '/invoke', headers: apiKey },
    ];
    const { seen, decisions } = await both(configOf(TABLE), cases, { acr: ['urn:mfa'], maxAge: 300 });
    cases.forEach((each, index) => {
      const [express, fastify] = seen[index]!;
      expect({ case: each.name, ...fastify }).toEqual({ case: each.name, ...express });
    });
    expect(seen.map(([, fastify]) => fastify.status)).toEqual([200, 401, 401]);
    expect(decisions[1]).toEqual(decisions[0]);
    expect(decisions[1]!.map((d) => [d.outcome, d.reason, d.userId])).toEqual([
      ['allowed', null, 'max'],
      ['refused', 'step_up_required', 'sam'],
      ['refused', 'step_up_required', 'SERVICE_API_KEY'],
    ]);
  });
});
