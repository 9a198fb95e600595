import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import { ADAPTERS, type Served } from './support/adapters.js';
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
import { comparable, expectTheSame, see, type Seen } from './support/seen.js';

// One case list, every adapter: the same config and the same requests must get the same answers
// (status, WWW-Authenticate, Retry-After, RateLimit-*, content type, body bytes) and the same
// decisions from @authlayer/express (auth.access before the routes), @authlayer/fastify and
// @authlayer/hono. Each row of `seen` is one case's answers, one per adapter, Express's first.

const NAMES = ADAPTERS.map(([name]) => name);
let idp: TestIdentityProvider;
let tokens: Tokens;
let now: number;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  ({ tokens, now } = await signTokens(idp));
});
afterAll(async () => idp.close());

const configOf = (access: object, extra: object = {}) => corpusConfig(idp, access, extra);

/** Every adapter on the same config; each case sent to each, in order. */
async function every(config: object, cases: readonly Case[], guard?: object) {
  const env = { ...idp.env, SERVICE_API_KEY: KEY };
  const options = { env, now: () => now, ...(guard === undefined ? {} : { guard }) };
  const servers: Served[] = [];
  try {
    for (const [, serve] of ADAPTERS) servers.push(await serve(config, ROUTES, options));
    const seen: Seen[][] = [];
    for (const each of cases) {
      const headers = each.headers?.(tokens) ?? {};
      const row: Seen[] = [];
      for (const served of servers) row.push(await see(served.url, each.method, each.path, headers));
      seen.push(row);
    }
    const decisions = servers.map((served) => served.decisions.map(comparable));
    for (const [at, made] of decisions.entries())
      expect({ adapter: NAMES[at], made }).toEqual({ adapter: NAMES[at], made: decisions[0] });
    return { seen, decisions: decisions[0]! };
  } finally {
    await Promise.all(servers.map((served) => served.close()));
  }
}

const names = (cases: readonly Case[]) => cases.map((each) => each.name);
/** The status each case got (every adapter's, once they were found the same). */
const statuses = (seen: readonly Seen[][]) => seen.map(([first]) => first!.status);

describe('the same config, the same answers and decisions: Express, Fastify and Hono', () => {
  it.each([
    ['default: authenticated', {}, [200, 401, 403]],
    ['default: deny', { default: 'deny' }, [200, 401, 403]],
    ['report_only', { default: 'deny', report_only: true }, [200, 401, 404]],
  ])('%s: every case', async (_name, policy, expected) => {
    const { seen, decisions } = await every(configOf({ ...TABLE, ...policy }), CASES);
    expectTheSame(NAMES, names(CASES), seen);
    expect(decisions.length).toBeGreaterThan(10);
    // The case list reaches every kind of answer, so that agreeing means something.
    expect(new Set(statuses(seen))).toEqual(new Set(expected));
  });

  it("the answers are the contract's (a sample of what every adapter gave)", async () => {
    const { seen } = await every(configOf(TABLE), CASES.slice(0, 3));
    const [refused, wrong, allowed] = seen.map(([first]) => first!);
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
    const cases = [wrong, wrong, right];
    const { seen } = await every(configOf(TABLE, { rate_limit: { failed_auth_per_minute: 2 } }), cases);
    expectTheSame(NAMES, names(cases), seen, true);
    expect(statuses(seen)).toEqual([401, 401, 429]);
    expect(seen[2]![0]!.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('rate_limit requests_per_minute: the same RateLimit headers on the answer, then the same 429', async () => {
    const right: Case = { name: 'right', method: 'POST', path: '/invoke', headers: apiKey };
    const cases = [right, right, right];
    const { seen } = await every(configOf(TABLE, { rate_limit: { requests_per_minute: 2 } }), cases);
    expectTheSame(NAMES, names(cases), seen, true);
    expect(statuses(seen)).toEqual([200, 200, 429]);
    expect(seen[0]![0]!.headers['ratelimit-policy']).not.toBeNull();
  });

  it('requireAccess after the table: the same 401s and 403s, and its refusal is the one decision', async () => {
    const cases: readonly Case[] = [
      { name: 'public route, no caller', method: 'GET', path: '/public' },
      { name: 'optional route, anonymous', method: 'GET', path: '/me' },
      { name: 'API key without the role', method: 'POST', path: '/invoke', headers: apiKey },
      { name: 'JWT without the role', method: 'POST', path: '/invoke', headers: bearer('user') },
      { name: 'JWT with the role', method: 'POST', path: '/invoke', headers: bearer('admin') },
    ];
    const { seen, decisions } = await every(configOf(TABLE), cases, { roles: ['admin'] });
    expectTheSame(NAMES, names(cases), seen);
    expect(statuses(seen)).toEqual([401, 401, 403, 403, 200]);
    // One decision per request: the public route's is the guard's 401 (no authentication ran).
    expect(decisions.map((d) => [d.outcome, d.reason, d.rule])).toEqual([
      ['refused', 'credentials_missing', 'GET /public'],
      ['refused', 'credentials_missing', 'GET /me'],
      ['forbidden', 'role_missing', 'POST /invoke'],
      ['forbidden', 'role_missing', 'POST /invoke'],
      ['allowed', null, null],
    ]);
  });

  it('claims and step-up: the answers the contract gives, resource_metadata included', async () => {
    const cases = CASES.filter((each) => ['/gold', '/stepped'].includes(each.path));
    const config = configOf(TABLE, { resource: { identifier: 'https://api.example.com' } });
    const { seen, decisions } = await every(config, cases);
    expectTheSame(NAMES, names(cases), seen);
    expect(statuses(seen)).toEqual([200, 403, 403, 200, 401, 401, 401]);
    const [, mismatch, , , stale] = seen.map(([first]) => first!);
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
    expect(decisions.map((d) => d.reason)).toEqual([
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
    const { seen, decisions } = await every(configOf(TABLE), cases, { acr: ['urn:mfa'], maxAge: 300 });
    expectTheSame(NAMES, names(cases), seen);
    expect(statuses(seen)).toEqual([200, 401, 401]);
    expect(decisions.map((d) => [d.outcome, d.reason, d.userId])).toEqual([
      ['allowed', null, 'max'],
      ['refused', 'step_up_required', 'sam'],
      ['refused', 'step_up_required', 'SERVICE_API_KEY'],
    ]);
  });
});
