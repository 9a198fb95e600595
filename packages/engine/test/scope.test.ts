import { describe, expect, it } from '@jest/globals';
import { bearerError, ForbiddenError } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { EventEmitter } from 'node:events';
import type { AuthDecision } from '../src/decision.js';
import { decisionOf, reportWhenAnswered, RequestScope, type ReportTo } from '../src/request/scope.js';

// request/scope.ts: the one decision of a request. A refusal is reported at once; a decision that
// lets the request go on is held until its answer starts, and a later refusal replaces it.

function sink(logRefusals = false) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const to: ReportTo = { logger, onDecision: (decision) => decisions.push(decision), logRefusals };
  return { to, decisions, logger };
}
const scopeOf = () => new RequestScope(() => 'r-9');
const allowed = (scope: RequestScope) => decisionOf(scope, 'allowed', null, 'ada', 'api_key');

describe('RequestScope: one decision per request', () => {
  it('a refusal is reported at once, nothing held', () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.decide(to, decisionOf(scope, 'refused', 'credentials_missing', null, 'api_key'), undefined);
    expect([scope.decided, scope.holding]).toEqual([true, false]);
    expect(decisions).toEqual([
      {
        outcome: 'refused',
        reason: 'credentials_missing',
        rule: null,
        userId: null,
        method: 'api_key',
        requestId: 'r-9',
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('allowed is held until the answer starts, then reported once', () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.decide(to, allowed(scope), 'GET /x');
    expect([scope.decided, scope.holding, decisions]).toEqual([true, true, []]);
    scope.answered();
    scope.answered();
    expect(decisions.map((d) => [d.outcome, d.userId])).toEqual([['allowed', 'ada']]);
    expect(scope.holding).toBe(false);
  });

  it("refusedLater: a guard's 403 replaces the held allowed; the answer reports nothing more", () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.decide(to, allowed(scope), undefined);
    scope.refusedLater(new ForbiddenError('role_missing', null, ['admin']), 'GET /admin');
    scope.answered();
    expect(decisions.map((d) => [d.outcome, d.reason, d.userId])).toEqual([['forbidden', 'role_missing', 'ada']]);
  });

  it('refusedLater with a 401 (a step-up): refused, the caller named', () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.decide(to, allowed(scope), undefined);
    scope.refusedLater(bearerError('credentials_missing'), 'GET /x');
    expect(decisions.map((d) => [d.outcome, d.reason, d.userId])).toEqual([['refused', 'credentials_missing', 'ada']]);
  });

  it('refusedLater and wouldRefuseLater do nothing when no decision is held', () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.wouldRefuseLater('tool_denied', 'mcp tools/call x');
    scope.refusedLater(new ForbiddenError('role_missing', null, ['admin']), 'GET /x');
    scope.decide(to, decisionOf(scope, 'refused', 'credentials_missing', null, 'api_key'), undefined);
    scope.refusedLater(new ForbiddenError('role_missing', null, ['admin']), 'GET /x');
    expect(decisions.map((d) => d.outcome)).toEqual(['refused']);
  });

  it("report_only: wouldRefuseLater turns the held allowed into would_refuse, warned with the route's key", () => {
    const { to, decisions, logger } = sink(true);
    const scope = scopeOf();
    scope.decide(to, allowed(scope), undefined);
    scope.wouldRefuseLater('role_missing', 'POST /tools');
    scope.wouldRefuseLater('scope_missing', 'POST /other');
    scope.answered();
    expect(decisions.map((d) => [d.outcome, d.reason])).toEqual([['would_refuse', 'role_missing']]);
    expect(logger.text).toEqual(['warn: access report_only: would_refuse POST /tools (role_missing)']);
  });

  it('nobody listening: allowed is not built nor held (allowedUnheard), the request still decided', () => {
    const to: ReportTo = { logger: createCaptureLogger(), onDecision: undefined };
    const scope = scopeOf();
    expect(scope.allowedUnheard(to)).toBe(true);
    expect([scope.decided, scope.holding]).toEqual([true, false]);
    scope.decide(to, allowed(scope), undefined);
    expect(scope.holding).toBe(false);
    expect(scopeOf().allowedUnheard(sink().to)).toBe(false);
  });

  it('a listener that throws when the answer starts is logged by its kind, not thrown', () => {
    const logger = createCaptureLogger();
    const to: ReportTo = {
      logger,
      onDecision: () => {
        throw new RangeError('listener secret');
      },
    };
    const scope = scopeOf();
    scope.decide(to, allowed(scope), undefined);
    expect(() => scope.answered()).not.toThrow();
    expect(logger.text).toEqual(['error: the onDecision listener failed (RangeError)']);
  });

  it('the decision span gets what was decided, and ends', () => {
    const { to } = sink();
    const scope = scopeOf();
    const attributes: Record<string, unknown>[] = [];
    const ended: unknown[] = [];
    scope.span = {
      setAttributes: (a: Record<string, unknown>) => attributes.push(a),
      end: (at?: number) => ended.push(at),
    } as never;
    scope.decide(to, decisionOf(scope, 'refused', 'credentials_missing', null, 'api_key'), undefined);
    expect(attributes).toEqual([
      { 'authlayer.method': 'api_key', 'authlayer.outcome': 'refused', 'authlayer.reason': 'credentials_missing' },
    ]);
    expect([ended, scope.span]).toEqual([[undefined], undefined]);
  });
});

describe('reportWhenAnswered', () => {
  class Response extends EventEmitter {
    heads: unknown[][] = [];
    writeHead(...args: unknown[]) {
      this.heads.push(args);
      return this;
    }
  }

  it('reports the held decision when writeHead is called, before the head goes out', () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.decide(to, allowed(scope), undefined);
    const response = new Response();
    reportWhenAnswered(scope, response);
    expect(decisions).toEqual([]);
    response.writeHead(200, { 'content-type': 'text/plain' });
    expect([decisions.length, response.heads]).toEqual([1, [[200, { 'content-type': 'text/plain' }]]]);
    response.emit('close');
    expect(decisions.length).toBe(1);
  });

  it('reports it when the connection closes without an answer', () => {
    const { to, decisions } = sink();
    const scope = scopeOf();
    scope.decide(to, allowed(scope), undefined);
    const response = new Response();
    reportWhenAnswered(scope, response);
    response.emit('close');
    expect(decisions.map((d) => d.outcome)).toEqual(['allowed']);
  });
});
