import { afterEach, describe, expect, it } from '@jest/globals';
import { bearerError } from '@authlayer/core';
import type { Engine } from '../src/engine.js';
import { decide } from '../src/request/decide.js';
import { RequestScope } from '../src/request/scope.js';
import { engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// request/decide.ts as an adapter calls it, without HTTP: the `access` table's step, then `decide`
// with a request and a scope; what comes back is the outcome, and the one decision reported.

const TABLE = {
  'GET /status': 'public',
  'POST /invoke': { permissions: ['invoke'] },
  'GET /reports/:id': { roles: ['auditor'] },
  'GET /scoped': { scopes: ['reports:read'] },
  'GET /me': 'optional',
  '* /admin{/*path}': 'deny',
};
const decided = (outcome: string, reason: string | null, userId: string | null) =>
  expect.objectContaining({ outcome, reason, userId, method: 'api_key', requestId: 'r-1' });

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});
async function tableEngine(access: Record<string, unknown> = TABLE, extra: Record<string, unknown> = {}) {
  const made = await engineAt({ access, ...extra });
  open.push(made.engine);
  return made;
}

describe('decide: the access table', () => {
  it('public: no flow, no decision, nothing asked of the caller', async () => {
    const { engine, decisions } = await tableEngine();
    const { step, outcome } = await judge(engine.current(), requestTo('GET', '/status'));
    expect([step, outcome, decisions]).toEqual(['public', null, []]);
  });

  it('authenticated by a rule: the caller with the permission passes with its context; the decision is held until answered', async () => {
    const { engine, decisions } = await tableEngine();
    const { outcome, scope } = await judge(engine.current(), requestTo('POST', '/invoke', { 'x-api-key': KEYS.admin }));
    expect(outcome).toEqual({
      pass: true,
      context: expect.objectContaining({ method: 'api_key', userId: 'admin', roles: ['admin'] }),
      headers: [],
    });
    expect([scope.decided, scope.holding, decisions]).toEqual([true, true, []]);
    scope.answered();
    expect(decisions).toEqual([decided('allowed', null, 'admin')]);
  });

  it('no credential: 401 with the challenge, refused at once', async () => {
    const { engine, decisions } = await tableEngine();
    const { outcome } = await judge(engine.current(), requestTo('POST', '/invoke'));
    expect(outcome).toMatchObject({
      pass: false,
      answer: { status: 401, code: 'unauthorized', headers: [['WWW-Authenticate', expect.stringMatching(/^ApiKey /)]] },
    });
    expect(decisions).toEqual([decided('refused', 'credentials_missing', null)]);
  });

  it('a wrong key: 401, and the key is nowhere in the answer or the decision', async () => {
    const { engine, decisions } = await tableEngine();
    const { outcome } = await judge(
      engine.current(),
      requestTo('POST', '/invoke', { 'x-api-key': 'wrong-key-000000000000' }),
    );
    expect(outcome).toMatchObject({ pass: false, answer: { status: 401 } });
    expect(JSON.stringify([outcome, decisions])).not.toContain('wrong-key');
    expect(decisions).toEqual([expect.objectContaining({ outcome: 'refused', userId: null })]);
  });

  it('a permission missing: 403 forbidden with the route that refused it', async () => {
    const { engine, decisions } = await tableEngine();
    const { outcome } = await judge(engine.current(), requestTo('POST', '/invoke', { 'x-api-key': KEYS.plain }));
    expect(outcome).toMatchObject({
      pass: false,
      answer: { status: 403, code: 'forbidden', message: 'the permission invoke is required' },
    });
    expect(decisions).toEqual([decided('forbidden', 'permission_missing', 'plain')]);
  });

  it('a role missing: 403; the role there: allowed', async () => {
    const { engine, decisions } = await tableEngine();
    const refused = await judge(engine.current(), requestTo('GET', '/reports/7', { 'x-api-key': KEYS.admin }));
    expect(refused.outcome).toMatchObject({ pass: false, answer: { status: 403, code: 'forbidden' } });
    const allowed = await judge(engine.current(), requestTo('GET', '/reports/7', { 'x-api-key': KEYS.auditor }));
    expect(allowed.outcome).toMatchObject({ pass: true });
    allowed.scope.answered();
    expect(decisions).toEqual([decided('forbidden', 'role_missing', 'admin'), decided('allowed', null, 'auditor')]);
  });

  it('a scope missing: 403 (an API key carries no scopes)', async () => {
    const { engine, decisions } = await tableEngine();
    const { outcome } = await judge(engine.current(), requestTo('GET', '/scoped', { 'x-api-key': KEYS.admin }));
    expect(outcome).toMatchObject({ pass: false, answer: { status: 403, code: 'forbidden' } });
    expect(decisions).toEqual([decided('forbidden', 'scope_missing', 'admin')]);
  });

  it('deny: decided by the table itself, before any caller is asked, for the bare prefix and below', async () => {
    const { engine, decisions } = await tableEngine();
    for (const path of ['/admin', '/admin/users']) {
      const { step, outcome } = await judge(engine.current(), requestTo('GET', path, { 'x-api-key': KEYS.admin }));
      expect([step, outcome]).toMatchObject(['denied', { pass: false, answer: { status: 403, code: 'forbidden' } }]);
    }
    expect(decisions).toEqual([decided('forbidden', 'route_denied', null), decided('forbidden', 'route_denied', null)]);
  });

  it('optional: anonymous without credentials, 401 for a wrong one', async () => {
    const { engine, decisions } = await tableEngine();
    const anonymous = await judge(engine.current(), requestTo('GET', '/me'));
    expect(anonymous.outcome).toMatchObject({ pass: true, context: { method: 'none', userId: null } });
    expect(anonymous.scope.anonymousBecause).toMatchObject({ name: 'AuthError', reason: 'credentials_missing' });
    const wrong = await judge(engine.current(), requestTo('GET', '/me', { 'x-api-key': 'wrong-key-000000000000' }));
    expect(wrong.outcome).toMatchObject({ pass: false, answer: { status: 401 } });
    anonymous.scope.answered();
    expect(decisions.map((d) => d.outcome)).toEqual(['refused', 'allowed']);
  });

  it('default: what no entry matches is authenticated; default: deny refuses it without asking', async () => {
    const { engine } = await tableEngine();
    expect((await judge(engine.current(), requestTo('GET', '/other'))).outcome).toMatchObject({
      answer: { status: 401 },
    });
    const passed = await judge(engine.current(), requestTo('GET', '/other', { 'x-api-key': KEYS.plain }));
    expect(passed.outcome).toMatchObject({ pass: true, context: { userId: 'plain' } });
    const closed = await tableEngine({ ...TABLE, default: 'deny' });
    const denied = await judge(closed.engine.current(), requestTo('GET', '/other', { 'x-api-key': KEYS.admin }));
    expect(denied).toMatchObject({ step: 'denied', outcome: { pass: false, answer: { status: 403 } } });
    expect(closed.decisions).toEqual([decided('forbidden', 'route_denied', null)]);
  });
});

describe('decide: report_only', () => {
  it('what a rule or deny would refuse goes on, reported as would_refuse and warned in the log', async () => {
    const { engine, decisions, logger } = await tableEngine({ ...TABLE, report_only: true });
    const rule = await judge(engine.current(), requestTo('POST', '/invoke', { 'x-api-key': KEYS.plain }));
    expect(rule.outcome).toMatchObject({ pass: true, context: { userId: 'plain' } });
    const denied = await judge(engine.current(), requestTo('GET', '/admin', { 'x-api-key': KEYS.admin }));
    expect(denied).toMatchObject({ step: 'flow', outcome: { pass: true } });
    rule.scope.answered();
    denied.scope.answered();
    expect(decisions).toEqual([
      decided('would_refuse', 'permission_missing', 'plain'),
      decided('would_refuse', 'route_denied', 'admin'),
    ]);
    expect(logger.text.filter((line) => line.startsWith('warn: access report_only'))).toEqual([
      'warn: access report_only: would_refuse POST /invoke (permission_missing)',
      'warn: access report_only: would_refuse * /admin{/*path} (route_denied)',
    ]);
  });

  it('a missing credential is still a 401: report_only relaxes the rules, not authentication', async () => {
    const { engine } = await tableEngine({ ...TABLE, report_only: true });
    const { outcome } = await judge(engine.current(), requestTo('POST', '/invoke'));
    expect(outcome).toMatchObject({ pass: false, answer: { status: 401 } });
  });
});

describe('decide: rate limits on the memory store', () => {
  const limited = (rate_limit: Record<string, unknown>) => tableEngine({}, { rate_limit });

  it('the request limit: RateLimit headers on each pass, then 429 with Retry-After and a rate_limited decision', async () => {
    const { engine, decisions } = await limited({ requests_per_minute: 2 });
    const key = { 'x-api-key': KEYS.admin };
    const outcomes = [];
    for (let i = 0; i < 3; i += 1) outcomes.push((await judge(engine.current(), requestTo('GET', '/x', key))).outcome);
    expect(outcomes.map((o) => o?.pass)).toEqual([true, true, false]);
    expect(outcomes[0]!.headers).toEqual([
      ['RateLimit-Policy', '"minute";q=2;w=60'],
      ['RateLimit', expect.stringMatching(/^"minute";r=1;t=\d+$/)],
    ]);
    expect(outcomes[2]).toMatchObject({
      pass: false,
      answer: { status: 429, code: 'rate_limited', headers: [['Retry-After', expect.stringMatching(/^\d+$/)]] },
      headers: [
        ['RateLimit-Policy', '"minute";q=2;w=60'],
        ['RateLimit', expect.stringMatching(/^"minute";r=0;/)],
      ],
    });
    expect(decisions.filter((d) => d.outcome === 'rate_limited')).toEqual([
      decided('rate_limited', 'too_many_requests', 'admin'),
    ]);
  });

  it('failed attempts of an address: refused guesses count, then 429 before the key is even checked', async () => {
    const { engine, decisions } = await limited({ failed_auth_per_minute: 2 });
    const wrong = { 'x-api-key': 'wrong-key-000000000000' };
    const statuses = [];
    for (let i = 0; i < 3; i += 1) {
      const { outcome } = await judge(engine.current(), requestTo('GET', '/x', wrong));
      statuses.push(outcome!.pass ? 200 : outcome!.answer.status);
    }
    const right = await judge(engine.current(), requestTo('GET', '/x', { 'x-api-key': KEYS.admin }));
    expect([...statuses, right.outcome!.pass ? 200 : right.outcome!.answer.status]).toEqual([401, 401, 429, 429]);
    expect(decisions.slice(2).map((d) => [d.outcome, d.reason])).toEqual([
      ['rate_limited', 'too_many_failures'],
      ['rate_limited', 'too_many_failures'],
    ]);
  });
});

describe('decide: the flows of a generation', () => {
  it('auth.optional flow: a request without credentials goes on anonymously, in the same turn', async () => {
    const { engine } = await tableEngine({});
    const scope = new RequestScope(() => 'r-1');
    const outcome = decide(engine.current().optional, requestTo('GET', '/x'), scope);
    expect(outcome).toMatchObject({ pass: true, context: { method: 'none' } });
  });

  it('passPreflight: a CORS preflight passes untouched, with no decision', async () => {
    const { engine, decisions } = await engineAt({}, { passPreflight: true });
    open.push(engine);
    const preflight = requestTo('OPTIONS', '/x', {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
    });
    const scope = new RequestScope(() => 'r-1');
    expect(decide(engine.current().auth, preflight, scope)).toEqual({ pass: true, context: undefined, headers: [] });
    expect([scope.decided, decisions]).toEqual([false, []]);
  });

  it('a handler that fails with something else than an AuthError: 500 internal, an error decision, a log line without the query', async () => {
    const { engine, decisions, logger } = await tableEngine({});
    const flow = { ...engine.current().auth, authenticate: () => Promise.reject(new TypeError('boom secret')) };
    const outcome = await decide(flow, requestTo('GET', '/x?token=secret'), new RequestScope(() => 'r-1'));
    expect(outcome).toEqual({
      pass: false,
      answer: { status: 500, headers: [], code: 'internal', message: 'internal error' },
      headers: [],
    });
    expect(decisions).toEqual([decided('error', 'handler_failed', null)]);
    expect(logger.text.filter((line) => line.startsWith('error:'))).toEqual([
      'error: the GET /x handler failed (TypeError)',
    ]);
  });

  it('a handler that throws an AuthError synchronously: refused, as a rejection would be', async () => {
    const { engine, decisions } = await tableEngine({});
    const flow = {
      ...engine.current().auth,
      authenticate: () => {
        throw bearerError('signature_invalid');
      },
    };
    const outcome = decide(flow, requestTo('GET', '/x'), new RequestScope(() => 'r-1'));
    expect(outcome).toMatchObject({ pass: false, answer: { status: 401 } });
    expect(decisions).toEqual([decided('refused', 'signature_invalid', null)]);
  });
});
