import type { AuthMethod } from '@authlayer/core';

/** How a request's authentication ended. */
export type DecisionOutcome = 'allowed' | 'refused' | 'rate_limited' | 'error';

/**
 * One authentication decision, made once per request by the middleware: what the audit line and
 * the metrics are built from. Holds no secret: never a key, a token, or a header's value.
 */
export interface AuthDecision {
  readonly outcome: DecisionOutcome;
  /** The active handler's method (`none` for the no-auth fallback). */
  readonly method: AuthMethod;
  /**
   * Why it was not allowed: the AuthError's reason (`token_expired`, ...), `too_many_failures`
   * (the client address is over `failed_auth_per_minute`), `too_many_requests` (the identity is
   * over `requests_per_minute`), `handler_failed`; `null` when allowed.
   */
  readonly reason: string | null;
  /** The caller's userId once authenticated, else `null`. */
  readonly userId: string | null;
  /** The request's `X-Request-Id` (see `requestId()`), else `null`. */
  readonly requestId: string | null;
  /** From the middleware's start to the decision, in milliseconds. */
  readonly durationMs: number;
}

/** Called once per decision (for an audit line, a metric). Must not throw. */
export type DecisionListener = (decision: AuthDecision) => void;
