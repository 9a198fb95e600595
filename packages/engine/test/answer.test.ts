import { describe, expect, it } from '@jest/globals';
import { ForbiddenError, bearerError, insufficientScopeChallenge } from '@authlayer/core';
import { INTERNAL_ANSWER, answerJson, refusalAnswer, tooManyAnswer } from '../src/request/answer.js';
import { periodOf } from '../src/rate-limit/period.js';

// The answers every adapter writes as they are: built once here, the bytes the same everywhere.

const METADATA = 'https://api.example.com/.well-known/oauth-protected-resource';
const dpop = { headers: { authorization: 'DPoP t0k' } };

describe('refusalAnswer', () => {
  it("a 401's challenge, with resource_metadata when the resource is configured", () => {
    expect(refusalAnswer(bearerError('credentials_missing'))).toEqual({
      status: 401,
      headers: [['WWW-Authenticate', 'Bearer realm="authlayer"']],
      code: 'unauthorized',
      message: 'no credentials were sent',
    });
    expect(refusalAnswer(bearerError('credentials_missing'), METADATA).headers).toEqual([
      ['WWW-Authenticate', `Bearer realm="authlayer", resource_metadata="${METADATA}"`],
    ]);
  });

  it('a 403 without a challenge has no WWW-Authenticate', () => {
    const answer = refusalAnswer(new ForbiddenError('role_missing', null, ['admin']), METADATA);
    expect(answer).toMatchObject({ status: 403, headers: [], code: 'forbidden' });
  });

  it('asks a caller whose token came as DPoP with the DPoP scheme (RFC 9449 §7.1), for a scope or a step-up', () => {
    const scope = new ForbiddenError('scope_missing', insufficientScopeChallenge('the scope a is required', ['a']), [
      'a',
    ]);
    expect(refusalAnswer(scope, undefined, dpop).headers[0]![1]).toMatch(
      /^DPoP realm="authlayer", error="insufficient_scope"/,
    );
    expect(refusalAnswer(scope, undefined, { headers: {} }).headers[0]![1]).toMatch(/^Bearer /);
    // A 401 of another kind asks for a credential again, not the DPoP caller's step-up.
    const expired = bearerError('token_expired');
    expect(refusalAnswer(expired, undefined, dpop).headers[0]![1]).toMatch(
      /^Bearer realm="authlayer", error="invalid_token"/,
    );
  });
});

describe('the other answers', () => {
  it('429 with Retry-After in whole seconds, at least one', () => {
    expect(tooManyAnswer(1).headers).toEqual([['Retry-After', '1']]);
    expect(tooManyAnswer(0).headers).toEqual([['Retry-After', '1']]);
    expect(tooManyAnswer(2_001)).toMatchObject({ status: 429, code: 'rate_limited', headers: [['Retry-After', '3']] });
  });

  it("answerJson: the contract's body, or the answer's own", () => {
    expect(answerJson(INTERNAL_ANSWER)).toBe('{"error":"internal","message":"internal error"}');
    expect(answerJson({ ...INTERNAL_ANSWER, body: { jsonrpc: '2.0' } })).toBe('{"jsonrpc":"2.0"}');
  });
});

describe('periodOf', () => {
  it('the UTC day and month of an instant: id, end and length', () => {
    const at = Date.UTC(2024, 1, 29, 23, 59, 59);
    expect(periodOf(at, 'day')).toEqual({ id: '2024-02-29', end: Date.UTC(2024, 2, 1), seconds: 86_400 });
    expect(periodOf(at, 'month')).toEqual({ id: '2024-02', end: Date.UTC(2024, 2, 1), seconds: 29 * 86_400 });
    expect(periodOf(Date.UTC(2025, 11, 31, 12), 'month')).toMatchObject({ id: '2025-12', end: Date.UTC(2026, 0, 1) });
  });
});
