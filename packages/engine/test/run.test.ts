import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthContext } from '@authlayer/core';
import { createEngine, type Engine } from '../src/engine.js';
import type { AuthDecision } from '../src/decision.js';
import {
  NOT_AUTHENTICATED_ANSWER,
  guardRefusal,
  namesCheck,
  ruleCheck,
  unauthenticated,
} from '../src/request/guard.js';
import type { Answer } from '../src/request/answer.js';
import type { EngineRequest } from '../src/request/decide.js';
import { refuseThrough, runAccess, runFlow, type HeaderList, type Port } from '../src/request/run.js';
import { RequestScope } from '../src/request/scope.js';

// The request port without HTTP: a real engine (the API key mode, a real key), a port that
// records what the engine asks of it.
const KEY = 'run-test-key-0123456789abcdef';
const CONFIG = {
  auth: { mode: 'api_key', api_keys: { keys: [{ name: 'reader', env_var: 'READER_API_KEY', roles: ['reader'] }] } },
  access: { 'GET /open': 'public', 'GET /closed': 'deny', 'GET /admin': { roles: ['admin'] } },
};
const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

type Call =
  | { kind: 'pass'; context: AuthContext | undefined; headers: HeaderList }
  | { kind: 'refuse'; answer: Answer; headers: HeaderList }
  | { kind: 'fail'; error: unknown };

/** A port whose `a` is the list the calls go to. */
function recorder(refuseLater: boolean): Port<Call[], null, null> {
  return {
    pass: (calls, _b, _c, context, headers) => void calls.push({ kind: 'pass', context, headers }),
    refuse: (calls, _b, _c, answer, headers) => void calls.push({ kind: 'refuse', answer, headers }),
    fail: (calls, _b, _c, error) => void calls.push({ kind: 'fail', error }),
    refuseLater,
  };
}

const request = (path: string, headers: Record<string, string> = {}): EngineRequest => ({
  method: 'GET',
  url: path,
  headers,
});

let decisions: AuthDecision[] = [];
let throwing = false;
let engine: Engine;
beforeAll(async () => {
  engine = await createEngine(CONFIG, {
    env: { READER_API_KEY: KEY },
    logger,
    onDecision: (decision) => {
      if (throwing) throw new Error('listener');
      decisions.push(decision);
    },
  });
});
afterAll(() => engine.close());

/** Runs `auth.access`'s order for `path` and waits until the port was called. */
async function access(path: string, headers: Record<string, string> = {}, refuseLater = true) {
  const calls: Call[] = [];
  const scope = new RequestScope(() => 'id-1');
  runAccess(engine.current(), 'GET', path, request(path, headers), scope, calls, null, null, recorder(refuseLater));
  const sync = [...calls];
  for (let turn = 0; calls.length === 0 && turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  return { sync, calls, scope };
}

describe('the request port', () => {
  it('passes a public route at once, untouched', async () => {
    const { sync } = await access('/open');
    expect(sync).toEqual([{ kind: 'pass', context: undefined, headers: [] }]);
  });

  it('passes a caller with its context', async () => {
    const { calls } = await access('/reports', { 'x-api-key': KEY });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ kind: 'pass', context: { userId: 'reader' } });
  });

  it('refuses a microtask later when the port asks it, else at once', async () => {
    const later = await access('/reports');
    expect(later.sync).toEqual([]);
    expect(later.calls).toMatchObject([{ kind: 'refuse', answer: { status: 401, code: 'unauthorized' } }]);
    const now = await access('/closed', {}, false);
    expect(now.sync).toMatchObject([{ kind: 'refuse', answer: { status: 403, code: 'forbidden' } }]);
  });

  it('hands a listener that throws to fail (the 500), never throws itself', async () => {
    throwing = true;
    try {
      const denied = await access('/closed');
      expect(denied.calls).toMatchObject([{ kind: 'fail' }]);
      const calls: Call[] = [];
      runFlow(engine.current().auth, request('/x'), new RequestScope(() => null), calls, null, null, recorder(true));
      expect(calls).toMatchObject([{ kind: 'fail' }]);
    } finally {
      throwing = false;
    }
  });

  it('writes every other refusal through the port alike', async () => {
    const calls: Call[] = [];
    refuseThrough(recorder(true), calls, null, null, NOT_AUTHENTICATED_ANSWER);
    expect(calls).toEqual([]);
    await Promise.resolve();
    expect(calls).toEqual([{ kind: 'refuse', answer: NOT_AUTHENTICATED_ANSWER, headers: [] }]);
  });
});

describe('guardRefusal', () => {
  const routeOf = (route: string) => route;
  const admin = ruleCheck({ roles: ['admin'] });

  it('answers 401 at once without a caller', () => {
    expect(guardRefusal(admin, undefined, request('/x'), undefined, routeOf, 'GET /x')).toEqual({
      answer: NOT_AUTHENTICATED_ANSWER,
      now: true,
    });
  });

  it('lets a caller who holds the names on', () => {
    const context = createAuthContext({ method: 'api_key', userId: 'a', roles: ['admin'] });
    expect(
      guardRefusal(namesCheck('roles', 'requireRoles', ['admin']), context, request('/x'), undefined, routeOf, 'r'),
    ).toBeNull();
  });

  it('refuses an anonymous caller with the 401 it was spared', () => {
    const scope = new RequestScope(() => null);
    const calls: Call[] = [];
    runFlow(engine.current().optional, request('/x'), scope, calls, null, null, recorder(false));
    expect(calls).toMatchObject([{ kind: 'pass', context: { method: 'none' } }]);
    const refusal = guardRefusal(admin, createAuthContext({ method: 'none' }), request('/x'), scope, routeOf, 'GET /x');
    expect(refusal).toMatchObject({ answer: { status: 401 }, now: true });
  });

  it("reports the 401 of a public route (no authentication ran) as the request's one decision", async () => {
    decisions = [];
    const { scope } = await access('/open', { 'x-api-key': KEY });
    const refusal = guardRefusal(admin, undefined, request('/open'), scope, routeOf, 'GET /open');
    expect(refusal).toEqual({ answer: NOT_AUTHENTICATED_ANSWER, now: true });
    expect(decisions).toEqual([
      {
        outcome: 'refused',
        reason: 'credentials_missing',
        rule: 'GET /open',
        userId: null,
        method: 'api_key',
        requestId: 'id-1',
        durationMs: expect.any(Number),
      },
    ]);
    // Once: the request has its decision; a second guard after it reports nothing more.
    guardRefusal(admin, undefined, request('/open'), scope, routeOf, 'GET /open');
    expect(decisions).toHaveLength(1);
  });

  it('replaces a held decision with the 401 when the caller went missing after it', async () => {
    decisions = [];
    const { scope } = await access('/reports', { 'x-api-key': KEY });
    expect(scope.holding).toBe(true);
    expect(unauthenticated(scope, routeOf, 'GET /reports')).toBe(NOT_AUTHENTICATED_ANSWER);
    expect(decisions).toMatchObject([{ outcome: 'refused', reason: 'credentials_missing', rule: 'GET /reports' }]);
    expect(scope.holding).toBe(false);
  });

  it('throws what a listener threw on that 401 (the adapter answers it with a 500)', async () => {
    const { scope } = await access('/open');
    throwing = true;
    try {
      expect(() => unauthenticated(scope, routeOf, 'GET /open')).toThrow('listener');
    } finally {
      throwing = false;
    }
  });

  it('reports nothing without a scope (no engine saw the request) or for a request decided already', async () => {
    decisions = [];
    expect(unauthenticated(undefined, routeOf, 'GET /x')).toBe(NOT_AUTHENTICATED_ANSWER);
    const { scope } = await access('/closed');
    expect(decisions).toHaveLength(1);
    unauthenticated(scope, routeOf, 'GET /closed');
    expect(decisions).toHaveLength(1);
  });

  it("reports a rule's refusal as the request's one decision, under the guard's route", async () => {
    decisions = [];
    const { calls, scope } = await access('/reports', { 'x-api-key': KEY });
    const context = (calls[0] as { context: AuthContext }).context;
    const refusal = guardRefusal(admin, context, request('/reports'), scope, routeOf, 'GET /reports');
    expect(refusal).toMatchObject({ answer: { status: 403, code: 'forbidden' }, now: false });
    expect(decisions).toMatchObject([{ outcome: 'forbidden', reason: 'role_missing', userId: 'reader' }]);
  });
});
