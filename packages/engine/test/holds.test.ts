import { describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthContext } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AuthDecision } from '../src/decision.js';
import { createEngine, type Engine } from '../src/engine.js';
import type { Generation } from '../src/generation.js';

// The holds of an engine, by its pinned clock: what ends a held request, and what a hold keeps.

const T = 1_800_000_000_000;
const SECRET = 'a-secret-of-at-least-thirty-two-bytes!';
const env = { JWT_SECRET: SECRET, SERVICE_API_KEY: 'service-key-0123456789abcdef' };
const JWT = {
  mode: 'jwt',
  jwt: { public_key_env: 'JWT_SECRET', algorithms: ['HS256'], issuer: 'https://idp', audience: 'api' },
};

async function engineWith(access: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const clock = { now: T };
  const engine = await createEngine(
    { auth: JWT, access, ...extra },
    { env, logger, now: () => clock.now, onDecision: (decision) => decisions.push(decision) },
  );
  return { engine, decisions, logger, clock };
}

/** A verified token's context, as the JWT handler makes it (its claims say when it ends). */
const tokenContext = (sub: string, exp: number, roles: string[] = []) =>
  createAuthContext({ method: 'jwt', userId: sub, roles, claims: { sub, exp, jti: `j-${sub}` } });

const heldAs = (engine: Engine, context: AuthContext | undefined, route: [string, string] | null, ended: string[]) =>
  engine.hold(
    {
      context,
      request: { headers: {} },
      requestId: 'r-1',
      planOf:
        route === null ? () => null : (generation: Generation) => generation.plan(route[0], route[1], { headers: {} }),
    },
    (reason) => ended.push(reason),
  );

describe('Engine.hold', () => {
  it("ends at once, in the call, a credential already past its end; a decision 'ended' with the reason", async () => {
    const { engine, decisions, clock } = await engineWith();
    const ended: string[] = [];
    clock.now = T;
    // The token's exp plus jwt's default leeway (30 s) is past.
    heldAs(engine, tokenContext('ada', T / 1000 - 31), null, ended);
    expect(ended).toEqual(['token_expired']);
    expect(engine.held()).toBe(0);
    expect(decisions).toEqual([
      // No table judged it (`auth` on a route): no key decided.
      {
        outcome: 'ended',
        reason: 'token_expired',
        rule: null,
        userId: 'ada',
        method: 'jwt',
        requestId: 'r-1',
        durationMs: 0,
      },
    ]);
    await engine.close();
  });

  it('re-judges held requests at a reload: the route, the anonymous, a mode gone, report_only', async () => {
    const access = { 'GET /feed': 'authenticated', 'GET /open': 'optional', 'GET /reports': { roles: ['r'] } };
    const { engine, decisions } = await engineWith(access);
    const ended: Record<string, string[]> = { feed: [], open: [], anonymous: [], reports: [], plain: [] };
    const far = T / 1000 + 3600;
    heldAs(engine, tokenContext('ada', far), ['GET', '/feed'], ended.feed!);
    heldAs(engine, tokenContext('bob', far), ['GET', '/open'], ended.open!);
    heldAs(engine, undefined, ['GET', '/open'], ended.anonymous!);
    heldAs(engine, tokenContext('cy', far, ['r']), ['GET', '/reports'], ended.reports!);
    heldAs(engine, tokenContext('dee', far), null, ended.plain!);
    expect(engine.held()).toBe(5);
    // report_only: the table only says what it would refuse; nothing ends.
    const reportOnly = { ...access, 'GET /feed': 'deny', 'GET /reports': { roles: ['admin'] } };
    await engine.reload({ auth: JWT, access: { ...reportOnly, report_only: true } });
    expect(engine.held()).toBe(5);
    await engine.reload({ auth: JWT, access: { ...access, 'GET /feed': 'deny', 'GET /open': 'authenticated' } });
    expect(ended).toEqual({
      feed: ['route_denied'],
      open: [],
      anonymous: ['credentials_missing'],
      reports: [],
      plain: [],
    });
    await engine.reload({ auth: JWT, access: { ...access, 'GET /reports': { roles: ['admin'] } } });
    expect(ended.reports).toEqual(['role_missing']);
    // The mode is gone: its credential would be no credential at all.
    await engine.reload({ auth: { mode: 'api_key' }, access });
    expect(ended.open).toEqual(['credentials_missing']);
    expect(ended.plain).toEqual(['credentials_missing']);
    expect(engine.held()).toBe(0);
    // `rule`: the key that refused, or that asks for a caller the held one no longer is.
    expect(decisions.map(({ outcome, userId, reason, rule }) => [outcome, userId, reason, rule])).toEqual([
      ['ended', 'ada', 'route_denied', 'GET /feed'],
      ['ended', null, 'credentials_missing', 'GET /open'],
      ['ended', 'cy', 'role_missing', 'GET /reports'],
      ['ended', 'bob', 'credentials_missing', 'GET /open'],
      ['ended', 'dee', 'credentials_missing', null],
    ]);
    await engine.close();
  });

  it("names the route's key when a credential ends it, and logs it as one line under access.log: refusals", async () => {
    const access = { 'GET /feed/:id': 'authenticated', log: 'refusals' };
    const { engine, decisions, logger } = await engineWith(access);
    heldAs(engine, tokenContext('ada', T / 1000 - 31), ['GET', '/feed/7'], []);
    heldAs(engine, tokenContext('bob', T / 1000 - 31), ['GET', '/elsewhere'], []);
    expect(decisions.map(({ reason, rule }) => [reason, rule])).toEqual([
      ['token_expired', 'GET /feed/:id'],
      // A route no key names: `access.default` asked for the caller.
      ['token_expired', 'default'],
    ]);
    expect(logger.text).toEqual([
      'info: access: ended token_expired rule="GET /feed/:id" method=jwt request_id=r-1',
      'info: access: ended token_expired rule="default" method=jwt request_id=r-1',
    ]);
    await engine.close();
  });

  it('fails closed when a plan cannot be made, and logs what a listener or an end function threw', async () => {
    const decisions: AuthDecision[] = [];
    const logger = createCaptureLogger();
    const engine = await createEngine(
      { auth: JWT },
      {
        env,
        logger,
        now: () => T,
        onDecision: (decision) => {
          decisions.push(decision);
          throw new Error('listener bug');
        },
      },
    );
    const release = engine.hold(
      {
        context: tokenContext('ada', T / 1000 + 60),
        request: { headers: {} },
        requestId: null,
        planOf: () => {
          throw new TypeError('no plan');
        },
      },
      () => {
        throw new Error('end bug');
      },
    );
    await engine.reload({ auth: JWT });
    expect(decisions.map((decision) => decision.reason)).toEqual(['route_denied']);
    expect(logger.lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      'a held request could not be judged after the reload (TypeError)',
      'the onDecision listener failed (Error)',
      "a held request's end function failed (Error)",
    ]);
    release();
    expect(() =>
      engine.hold({ context: undefined, request: { headers: {} }, requestId: null, planOf: () => null }, 'x' as never),
    ).toThrow(new TypeError('auth.hold(req, end): end must be a function'));
    await engine.close();
  });

  it('keeps at most 20 MiB for 10 000 held requests, and nothing once they are released', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { engine } = await engineWith({ 'GET /feed/:id': 'authenticated' });
    // The contexts exist before (the app holds them for its connections): only the holds are measured.
    const contexts = Array.from({ length: 10_000 }, (_, index) => tokenContext(`u-${index}`, T / 1000 + 1 + index));
    const route = (generation: Generation) => generation.plan('GET', '/feed/1', { headers: {} });
    const holdAll = () =>
      contexts.map((context) =>
        engine.hold({ context, request: { headers: {} }, requestId: null, planOf: route }, () => undefined),
      );
    // A first round compiles the code and grows the tables to their size: what stays is the code's.
    for (const release of holdAll()) release();
    gc();
    const before = process.memoryUsage().heapUsed;
    const releases = holdAll();
    gc();
    const held = process.memoryUsage().heapUsed - before;
    expect(engine.held()).toBe(10_000);
    expect(held).toBeLessThan(20 * 2 ** 20);
    for (const release of releases) release();
    releases.length = 0;
    gc();
    expect(engine.held()).toBe(0);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 ** 20);
    expect(contexts).toHaveLength(10_000);
    await engine.close();
  });
});
