import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { isRefusal, logRefusal } from '../src/access/access-log.js';
import type { AuthDecision } from '../src/decision.js';
import type { Engine } from '../src/engine.js';
import { RequestScope } from '../src/request/scope.js';
import { engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// `access.log: refusals`: one line per refusal through the engine's logger, naming the outcome,
// the reason, the deciding key and the mode, and the request id only when it is a plain token.

let engine: Engine;
let logged: () => string[];
beforeAll(async () => {
  const made = await engineAt({ access: { log: 'refusals', 'GET /reports/:id': { roles: ['admin'] } } });
  engine = made.engine;
  logged = () => made.logger.text.filter((line) => line.includes('access:'));
});
afterAll(() => engine.close());

const refusedWithId = async (id: string) => {
  const before = logged().length;
  await judge(
    engine.current(),
    requestTo('GET', '/reports/7', { 'x-api-key': KEYS.plain }),
    new RequestScope(() => id),
  );
  return logged().slice(before);
};

describe('the line of a refusal', () => {
  it('names the request id when it is a plain token', async () => {
    expect(await refusedWithId('req-7f3c.1:a_b')).toEqual([
      'info: access: forbidden role_missing rule="GET /reports/:id" method=api_key request_id=req-7f3c.1:a_b',
    ]);
  });

  it('leaves out a request id of any other shape (spaces, quotes, a line break, too long)', async () => {
    for (const id of ['two words', 'x"y', 'a\nwarn: forged', 'x'.repeat(129)]) {
      expect(await refusedWithId(id)).toEqual([
        'info: access: forbidden role_missing rule="GET /reports/:id" method=api_key',
      ]);
    }
  });

  it('an allowed request logs nothing', async () => {
    const before = logged().length;
    await judge(engine.current(), requestTo('GET', '/reports/7', { 'x-api-key': KEYS.admin }));
    expect(logged().slice(before)).toEqual([]);
  });
});

describe('logRefusal and isRefusal', () => {
  const decision = (fields: Partial<AuthDecision>): AuthDecision => ({
    outcome: 'refused',
    method: 'jwt',
    reason: 'token_expired',
    rule: null,
    userId: null,
    requestId: null,
    durationMs: 0,
    ...fields,
  });

  it('a refusal no key decided (a route without a table): no rule in the line', () => {
    const logger = createCaptureLogger();
    logRefusal(logger, decision({}));
    expect(logger.text).toEqual(['info: access: refused token_expired method=jwt']);
  });

  it('would_refuse is a warning (what report_only watches), an ended hold without a reason is info', () => {
    const logger = createCaptureLogger();
    logRefusal(logger, decision({ outcome: 'would_refuse', reason: 'route_denied', rule: 'default' }));
    logRefusal(logger, decision({ outcome: 'ended', reason: null, rule: 'GET /a' }));
    expect(logger.text).toEqual([
      'warn: access: would_refuse route_denied rule="default" method=jwt',
      'info: access: ended  rule="GET /a" method=jwt',
    ]);
  });

  it('refusals are forbidden, refused, would_refuse and ended; not allowed, rate_limited or error', () => {
    const outcomes = ['allowed', 'refused', 'forbidden', 'would_refuse', 'rate_limited', 'error', 'ended'] as const;
    expect(outcomes.filter((outcome) => isRefusal(decision({ outcome })))).toEqual([
      'refused',
      'forbidden',
      'would_refuse',
      'ended',
    ]);
  });
});
