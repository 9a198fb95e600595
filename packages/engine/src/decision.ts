import type { AuthMethod } from '@authlayer/core';

/**
 * How a request's authentication (and, with `auth.access`, authorization) ended: `forbidden` is a
 * 403 of the table, `would_refuse` one that `report_only` let through; `ended` is a held request
 * (`auth.hold`) whose authority ended after it was let through.
 */
export type DecisionOutcome = 'allowed' | 'refused' | 'forbidden' | 'would_refuse' | 'rate_limited' | 'error' | 'ended';

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
   * over `requests_per_minute`), `handler_failed`, a 403's reason (`permission_missing`,
   * `route_denied`, ...); `null` when allowed.
   */
  readonly reason: string | null;
  /**
   * What decided a refusal (`forbidden`, `refused`, `would_refuse`, `ended`): the `access` key
   * whose rule refused (`GET /reports/:id`, `MCP tools/call delete_file`), `default` for
   * `access.default`; for a 401 of authentication, the key that asked for a caller; for a guard's
   * refusal, the route it guards as registered. `null` when allowed, rate limited or failed, and
   * where no table judged the request (`auth` on a route, no `access`).
   */
  readonly rule: string | null;
  /** The caller's userId once authenticated, else `null`. */
  readonly userId: string | null;
  /** The request's `X-Request-Id` (see `requestId()`), else `null`. */
  readonly requestId: string | null;
  /** From the middleware's start to the decision, in milliseconds. */
  readonly durationMs: number;
}

/** Called once per decision (for an audit line, a metric). Must not throw. */
export type DecisionListener = (decision: AuthDecision) => void;
