import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthContext } from '@authlayer/core';
import { createSigningKey, mintToken, type SigningKey } from '@authlayer/testkit';
import type { AuthDecision } from '../src/decision.js';
import { createEngine, type Engine } from '../src/engine.js';
import type { Answer } from '../src/request/answer.js';
import type { EngineRequest } from '../src/request/decide.js';
import { guardRefusal, namesCheck } from '../src/request/guard.js';
import { runFlow, runPlan, type HeaderList, type Port } from '../src/request/run.js';
import { RequestScope } from '../src/request/scope.js';

// The request port for a plan the adapter made itself (Fastify's, once per route), and for a
// decision that settles later (JWT mode asking an asynchronous revocation hook): a real engine,
// real tokens, a port that records what the engine asks of it.

const T = Date.UTC(2026, 10, 28, 12);
const ACCESS = { 'GET /closed': 'deny', 'GET /reports': { roles: ['auditor'] } };

type Call =
  | { kind: 'pass'; context: AuthContext | undefined; headers: HeaderList }
  | { kind: 'refuse'; answer: Answer }
  | { kind: 'fail'; error: unknown };

/** A port whose `a` is the list the calls go to; `done` resolves at the first call. */
function recorder() {
  const calls: Call[] = [];
  let told: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (told = resolve));
  const port: Port<Call[], null, null> = {
    pass: (list, _b, _c, context, headers) => void (list.push({ kind: 'pass', context, headers }), told()),
    refuse: (list, _b, _c, answer) => void (list.push({ kind: 'refuse', answer }), told()),
    fail: (list, _b, _c, error) => void (list.push({ kind: 'fail', error }), told()),
    refuseLater: false,
  };
  return { calls, port, done };
}

let key: SigningKey;
let engine: Engine;
let decisions: AuthDecision[] = [];
let throwing = false;
const revoked = new Set<string>();
beforeAll(async () => {
  key = await createSigningKey('HS256');
  engine = await createEngine(
    {
      auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_KEY', algorithms: ['HS256'], audience: 'api' } },
      access: ACCESS,
    },
    {
      env: { JWT_KEY: key.envValue },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      now: () => T,
      // A hook that answers later, as one asking a database would: the decision settles later too.
      isRevoked: (_context, claims) => Promise.resolve(revoked.has(String(claims.sub))),
      onDecision: (decision) => {
        if (throwing) throw new Error('listener');
        decisions.push(decision);
      },
    },
  );
});
afterAll(() => engine.close());

const bearer = async (sub: string, roles: string[] = []) => ({
  authorization: `Bearer ${await mintToken(key, { sub, roles, aud: 'api', iat: T / 1000, exp: T / 1000 + 60 })}`,
});
const request = (url: string, headers: Record<string, string> = {}): EngineRequest => ({ method: 'GET', url, headers });

describe('runPlan: a plan the adapter made', () => {
  it('decides a flow as runAccess would, and passes the caller on', async () => {
    const { calls, port, done } = recorder();
    const generation = engine.current();
    const headers = await bearer('ada', ['auditor']);
    const plan = generation.plan('GET', '/reports', request('/reports', headers));
    runPlan(generation, plan, request('/reports', headers), new RequestScope(() => 'r-1'), calls, null, null, port);
    // The hook answers later: nothing was decided in the call.
    expect(calls).toEqual([]);
    await done;
    expect(calls).toMatchObject([{ kind: 'pass', context: { userId: 'ada', roles: ['auditor'] } }]);
  });

  it("hands a listener that throws on a denied route's refusal to fail (the 500)", () => {
    const { calls, port } = recorder();
    const generation = engine.current();
    const plan = generation.plan('GET', '/closed', request('/closed'));
    throwing = true;
    try {
      runPlan(generation, plan, request('/closed'), new RequestScope(() => null), calls, null, null, port);
    } finally {
      throwing = false;
    }
    expect(calls).toEqual([{ kind: 'fail', error: new Error('listener') }]);
  });
});

describe('runFlow: a decision that settles later', () => {
  it('refuses a revoked token once the hook answered', async () => {
    revoked.add('eve');
    decisions = [];
    const { calls, port, done } = recorder();
    runFlow(
      engine.current().auth,
      request('/x', await bearer('eve')),
      new RequestScope(() => 'r-2'),
      calls,
      null,
      null,
      port,
    );
    await done;
    expect(calls).toMatchObject([{ kind: 'refuse', answer: { status: 401, code: 'unauthorized' } }]);
    expect(decisions).toMatchObject([{ outcome: 'refused', reason: 'token_revoked', requestId: 'r-2' }]);
  });

  it('hands what a listener threw, once the hook answered, to fail', async () => {
    const { calls, port, done } = recorder();
    const headers = await bearer('eve');
    throwing = true;
    try {
      runFlow(engine.current().auth, request('/x', headers), new RequestScope(() => null), calls, null, null, port);
      await done;
    } finally {
      throwing = false;
    }
    expect(calls).toEqual([{ kind: 'fail', error: new Error('listener') }]);
  });
});

describe('guards without an engine before them', () => {
  const routeOf = (route: string) => route;
  const reader = createAuthContext({ method: 'api_key', userId: 'reader', roles: ['reader'] });

  it('refuses a caller who lacks a name with the 403 naming it; no scope: nobody hears of it', () => {
    const refusal = guardRefusal(
      namesCheck('roles', 'requireRoles', ['admin']),
      reader,
      request('/admin'),
      undefined,
      routeOf,
      'GET /admin',
    );
    expect(refusal).toMatchObject({
      answer: { status: 403, code: 'forbidden', message: 'the role admin is required' },
      now: false,
    });
  });

  it.each([
    ['no name', []],
    ['a name with a space', ['an admin']],
    ['a name that is not a string', [7]],
  ])('refuses a guard made with %s, at once', (_name, names) => {
    expect(() => namesCheck('roles', 'requireRoles', names)).toThrow(
      new TypeError('requireRoles(...names) needs at least one name of printable ASCII without space, " or \\'),
    );
  });
});
