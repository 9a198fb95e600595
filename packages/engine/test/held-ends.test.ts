import { afterEach, describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthContext } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import type { AuthDecision } from '../src/decision.js';
import { createEngine, type Engine } from '../src/engine.js';
import type { Generation } from '../src/generation.js';
import type { Timers } from '../src/held/end-schedule.js';
import { Holds } from '../src/held/holds.js';
import { API_KEYS, engineAt, KEYS } from './support/engine-at.js';

// What ends a held request besides what holds.test.ts shows: its credential's end reached on the
// schedule (by the test's own timer), a revocation (told by the list), and a reload that limits
// its route to other modes; and what keeps one open (a route made public, a key without an end).

const T = 1_800_000_000_000;
const SECRET = 'a-secret-of-at-least-thirty-two-bytes!';
const JWT = {
  mode: 'jwt',
  jwt: { public_key_env: 'JWT_SECRET', algorithms: ['HS256'], issuer: 'https://idp', audience: 'api' },
};

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});

/** Timers the test runs itself: `fire()` runs the one armed, as Node would once its wait passed. */
function manualTimers() {
  let armed: (() => void) | null = null;
  const timers: Timers = {
    setTimeout: (run) => ((armed = run), run),
    clearTimeout: (timer) => void (armed === timer && (armed = null)),
  };
  return { timers, fire: () => armed?.() };
}

/** Holds on a real JWT engine's generation, with the test's clock, timers and revocation list. */
async function holdsOnJwt() {
  const engine = await createEngine({ auth: JWT }, { env: { JWT_SECRET: SECRET }, logger: createCaptureLogger() });
  open.push(engine);
  const decisions: AuthDecision[] = [];
  const clock = { now: T };
  const revoked = new Set<string>();
  const { timers, fire } = manualTimers();
  const logger = createCaptureLogger();
  const holds = new Holds({
    now: () => clock.now,
    logger,
    onDecision: (decision) => void decisions.push(decision),
    current: () => engine.current(),
    isRevoked: (context) => revoked.has(context.userId ?? ''),
    timers,
  });
  return { holds, decisions, clock, revoked, fire, logger };
}

const tokenContext = (sub: string, exp: number) =>
  createAuthContext({ method: 'jwt', userId: sub, claims: { sub, exp } });
const holdOf = (holds: Holds, context: AuthContext | undefined, ended: string[], planOf = () => null) =>
  holds.hold({ context, request: { headers: {} }, requestId: 'r-1', planOf }, (reason) => void ended.push(reason));

describe('Holds: the ends a credential brings', () => {
  it("ends a held request when its token's end comes on the schedule; a table that cannot say: no key", async () => {
    const { holds, decisions, clock, fire } = await holdsOnJwt();
    const ended: string[] = [];
    holdOf(holds, tokenContext('ada', T / 1000 + 60), ended, () => {
      throw new TypeError('no plan');
    });
    fire();
    expect([ended, holds.size]).toEqual([[], 1]);
    // exp plus jwt's default leeway of 30 s.
    clock.now = T + 90_000;
    fire();
    expect([ended, holds.size]).toEqual([['token_expired'], 0]);
    expect(decisions).toMatchObject([{ outcome: 'ended', reason: 'token_expired', rule: null, userId: 'ada' }]);
  });

  it('ends a request whose credential is revoked already, in the call, and the others when the list changes', async () => {
    const { holds, decisions, revoked } = await holdsOnJwt();
    revoked.add('eve');
    const ended: Record<string, string[]> = { eve: [], ada: [], bob: [], anonymous: [] };
    holdOf(holds, tokenContext('eve', T / 1000 + 600), ended.eve!);
    expect(ended.eve).toEqual(['token_revoked']);
    holdOf(holds, tokenContext('ada', T / 1000 + 600), ended.ada!);
    holdOf(holds, tokenContext('bob', T / 1000 + 600), ended.bob!);
    holdOf(holds, undefined, ended.anonymous!);
    revoked.add('ada');
    holds.revoked();
    expect(ended).toEqual({ eve: ['token_revoked'], ada: ['token_revoked'], bob: [], anonymous: [] });
    expect(holds.size).toBe(2);
    expect(decisions.map(({ reason, userId }) => [reason, userId])).toEqual([
      ['token_revoked', 'eve'],
      ['token_revoked', 'ada'],
    ]);
  });

  it('logs an end function that throws something that is not an Error by its type', async () => {
    const { holds, clock, logger } = await holdsOnJwt();
    clock.now = T + 3_600_000;
    holds.hold(
      { context: tokenContext('ada', T / 1000), request: { headers: {} }, requestId: null, planOf: () => null },
      () => {
        throw 'end bug';
      },
    );
    expect(logger.text).toEqual(["error: a held request's end function failed (string)"]);
  });
});

describe('Engine.hold across reloads of a two-mode config', () => {
  const auth = { ...API_KEYS, mode: ['api_key', 'jwt'], jwt: JWT.jwt };
  const env = { ADMIN_KEY: KEYS.admin, AUDITOR_KEY: KEYS.auditor, PLAIN_KEY: KEYS.plain, JWT_SECRET: SECRET };

  it("keeps an API key's request open on a public route and one of its modes; ends it when its mode is left out", async () => {
    const { engine, decisions } = await engineAt({ auth, access: { 'GET /feed': 'authenticated' } }, { env });
    open.push(engine);
    const ended: string[] = [];
    // The key has no end of its own: only a reload or a revocation ends its request.
    engine.hold(
      {
        context: createAuthContext({ method: 'api_key', userId: 'admin', roles: ['admin'] }),
        request: { headers: { 'x-api-key': KEYS.admin } },
        requestId: 'r-7',
        planOf: (generation: Generation) => generation.plan('GET', '/feed', { headers: {} }),
      },
      (reason) => void ended.push(reason),
    );
    await engine.reload({ auth, access: { 'GET /feed': 'public' } });
    await engine.reload({ auth, access: { 'GET /feed': { roles: ['admin'], modes: ['api_key'] } } });
    expect([ended, engine.held()]).toEqual([[], 1]);
    await engine.reload({ auth, access: { 'GET /feed': { roles: ['admin'], modes: ['jwt'] } } });
    expect([ended, engine.held()]).toEqual([['credentials_missing'], 0]);
    expect(decisions).toMatchObject([
      { outcome: 'ended', reason: 'credentials_missing', rule: 'GET /feed', userId: 'admin', requestId: 'r-7' },
    ]);
  });
});
