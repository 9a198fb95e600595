import {
  createAuthContext,
  type AuthError,
  isAuthError,
  isFailedGuess,
  type AuthContext,
  type AuthMethod,
  type AuthRequest,
  type ClientLimits,
  type Logger,
  type MaybePromise,
  type PeerSocket,
} from '@authlayer/core';
import { isPromiseLike, startDecisionSpan, withSpan } from '@authlayer/core/internal';
import { authorizeByPlan, type Refusal } from '../access/access-plan.js';
import type { ScopeImplies } from '../access/rules.js';
import type { DecisionListener } from '../decision.js';
import { clientAddress } from '../rate-limit/client-address.js';
import { rateLimitHeaders } from '../rate-limit/headers.js';
import { after } from '../rate-limit/limiter.js';
import type { RateLimits, RequestVerdict } from '../rate-limit/verdicts.js';
import { INTERNAL_ANSWER, refusalAnswer, tooManyAnswer, type Answer } from './answer.js';
import { carriesCredentials, isPreflight } from '../access/credentials.js';
import { kindOf } from './kind-of.js';
import { modeThatRefused } from './mode-tried.js';
import { pathOf } from './path-of.js';
import { decisionOf, type RequestScope } from './scope.js';
import type { RequestAuth } from './auth-info.js';

/**
 * A request as the engine takes it: what a handler reads (headers, method, URL, the TLS socket),
 * and the connection's peer for the failed-auth limit. Node's `IncomingMessage` (and so Express's
 * and Fastify's raw request) is one as it is.
 */
export interface EngineRequest extends AuthRequest {
  readonly method: string;
  readonly socket?: PeerSocket;
}

/** How one kind of route authenticates: built once per generation, the same for every request. */
export interface Flow {
  /** The active handler's method, for decisions that have no identity. */
  readonly method: AuthMethod;
  /** The handler's `authenticateNow` (or `authenticate`): an AuthContext now, or a Promise. */
  readonly authenticate: (request: AuthRequest) => MaybePromise<AuthContext>;
  readonly logger: Logger;
  readonly limits: RateLimits | null;
  /** `rate_limit.trust_proxy`: `false`, `true` (one proxy) or the number of proxies; see `clientAddress`. */
  readonly trustProxy: boolean | number;
  readonly onDecision: DecisionListener | undefined;
  /**
   * Null when a credential is required. For `optional`, the headers that carry a credential: a
   * request with none of them goes on with the anonymous context instead of the 401.
   */
  readonly optional: readonly string[] | null;
  /** Let a CORS preflight through unauthenticated (no context). */
  readonly passPreflight: boolean;
  /** `access.report_only`: a refusal of the plan is a `would_refuse` decision and the request goes on. */
  readonly reportOnly: boolean;
  /** `access.report_only`: `would_refuse` and `forbidden` decisions are also one `warn` line each. */
  readonly logRefusals: boolean;
  /** `access.log: refusals`: every decision that refuses or would refuse is one log line. */
  readonly logDecisions?: boolean;
  /** RFC 9728: the metadata URL every 401's Bearer challenge names (`resource_metadata`). */
  readonly resourceMetadata?: string;
  /** The request's own copy of a context it lets through, with the MCP SDK's `AuthInfo` fields (see `createAuthInfo`). */
  readonly authInfo: (context: AuthContext, request: AuthRequest) => RequestAuth;
  /** The limits of the client behind a context (the handler's `limitsOf`), for `rate_limit`. */
  readonly limitsOf?: (context: AuthContext) => ClientLimits | undefined;
  /** The middleware's clock, in ms (`max_age` of a rule is judged by it). */
  readonly now: () => number;
  /** `scopes.implies`, closed: what each scope grants besides itself. */
  readonly implies?: ScopeImplies;
}

/**
 * What the engine answers for a request: go on (with the caller's context, `undefined` for a CORS
 * preflight let through, and headers to add to whatever the app answers), or a refusal to write.
 */
export type Outcome =
  | {
      readonly pass: true;
      readonly context: RequestAuth | undefined;
      readonly headers: readonly (readonly [string, string])[];
    }
  | {
      readonly pass: false;
      readonly answer: Answer;
      readonly headers: readonly (readonly [string, string])[];
    };

const ANONYMOUS = createAuthContext({ method: 'none' });
const NO_HEADERS: readonly (readonly [string, string])[] = Object.freeze([]);
const PASS_PREFLIGHT: Outcome = Object.freeze({ pass: true, context: undefined, headers: NO_HEADERS });

/**
 * One request: a CORS preflight passes untouched (no decision, no context); else the failed-auth
 * limit of its address (before any verification), the handler, the `access` plan in `scope`, the
 * identity's request limit; then exactly one decision, reported once through `scope`.
 *
 * Without rate limits, a handler that answers synchronously (`authenticateNow`) gives the outcome
 * in the same turn; otherwise a Promise. Either way it may throw (or reject) only with what an
 * `onDecision` listener threw: the adapter answers that with a 500.
 */
export function decide(flow: Flow, request: EngineRequest, scope: RequestScope): MaybePromise<Outcome> {
  if (flow.passPreflight && isPreflight(request)) {
    // Undecided: a guard after it that finds no caller reports its 401 through the flow.
    scope.reportTo = flow;
    return PASS_PREFLIGHT;
  }
  // For a guard after the decision (`requireAccess`): the same clock and 401 challenges.
  scope.now = flow.now;
  scope.resourceMetadata = flow.resourceMetadata;
  if (flow.implies !== undefined) scope.implies = flow.implies;
  scope.started = flow.onDecision === undefined ? 0 : performance.now();
  // OpenTelemetry: one span per decision (null without an SDK), active while the handler runs so
  // that key set fetches, introspections and Redis calls are its children; the decision ends it.
  const span = startDecisionSpan();
  if (span === null) return decideNow(flow, request, scope);
  scope.span = span;
  return withSpan(span, () => decideNow(flow, request, scope));
}

function decideNow(flow: Flow, request: EngineRequest, scope: RequestScope): MaybePromise<Outcome> {
  if (flow.limits !== null) return decideLimited(flow, flow.limits, request, scope);
  let answer: MaybePromise<AuthContext>;
  try {
    answer = flow.authenticate(request);
  } catch (error) {
    return failed(flow, error, request, scope);
  }
  if (!isPromiseLike(answer)) return allow(flow, answer, request, scope, NO_HEADERS);
  return answer.then(
    (context) => allow(flow, context, request, scope, NO_HEADERS),
    (error: unknown) => failed(flow, error, request, scope),
  );
}

/**
 * With `rate_limit`: the limits are asked around the handler. With the memory store and a handler
 * that answers at once, the whole decision is made in the same turn; a Redis store or a handler
 * that waits continues when it answered.
 */
function decideLimited(
  flow: Flow,
  limits: RateLimits,
  request: EngineRequest,
  scope: RequestScope,
): MaybePromise<Outcome> {
  const address = clientAddress(request, flow.trustProxy);
  // Reserved before verifying, so requests that arrive together cannot all pass a check first.
  return after(limits.reserveFailure(address), (reservation) => {
    if (typeof reservation === 'number') {
      report(flow, scope, 'rate_limited', 'too_many_failures', null);
      return { pass: false, answer: tooManyAnswer(reservation), headers: NO_HEADERS };
    }
    const verified = (context: AuthContext | null, error: unknown): MaybePromise<Outcome> => {
      if (context === null) {
        if (!isAnonymousAllowed(flow, error, request)) {
          // Only refused client credentials are guesses (see isFailedGuess): not a provider's outage.
          if (isAuthError(error) && isFailedGuess(error.reason)) {
            reservation.keep();
            return refuse(flow, error, request, scope);
          }
          return after(reservation.release(), () => refuse(flow, error, request, scope));
        }
        scope.anonymousBecause = error;
      }
      const caller = context ?? ANONYMOUS;
      return after(reservation.release(), () =>
        after(limits.consumeRequest(identityOf(caller, address), flow.limitsOf?.(caller)), (verdict) =>
          judged(flow, caller, request, scope, verdict),
        ),
      );
    };
    let answer: MaybePromise<AuthContext>;
    try {
      answer = flow.authenticate(request);
    } catch (error) {
      return verified(null, error);
    }
    if (!isPromiseLike(answer)) return verified(answer, undefined);
    return answer.then(
      (context) => verified(context, undefined),
      (error: unknown) => verified(null, error),
    );
  });
}

/** The identity's request limits answered: 429 over one, else the plan; `RateLimit-*` either way. */
function judged(
  flow: Flow,
  context: AuthContext,
  request: EngineRequest,
  scope: RequestScope,
  verdict: RequestVerdict,
): Outcome {
  let headers = NO_HEADERS;
  if (verdict.states.length > 0) {
    const { policy, state } = rateLimitHeaders(verdict.states);
    headers = [
      ['RateLimit-Policy', policy],
      ['RateLimit', state],
    ];
  }
  if (verdict.wait !== null) {
    report(flow, scope, 'rate_limited', 'too_many_requests', context.userId);
    return { pass: false, answer: tooManyAnswer(verdict.wait), headers };
  }
  return allow(flow, context, request, scope, headers);
}

/** The handler threw or rejected: anonymous when optional and without credentials, else refused. */
function failed(flow: Flow, error: unknown, request: EngineRequest, scope: RequestScope): Outcome {
  if (!isAnonymousAllowed(flow, error, request)) return refuse(flow, error, request, scope);
  scope.anonymousBecause = error;
  return allow(flow, ANONYMOUS, request, scope, NO_HEADERS);
}

function allow(
  flow: Flow,
  context: AuthContext,
  request: EngineRequest,
  scope: RequestScope,
  headers: Outcome['headers'],
): Outcome {
  const refusal = authorizeByPlan(scope.plan, request, context, flow.now, flow.implies);
  scope.candidate?.(context, refusal);
  if (refusal === null) {
    report(flow, scope, 'allowed', null, context.userId, context.method);
  } else if (flow.reportOnly) {
    report(flow, scope, 'would_refuse', refusal.error.reason, context.userId, context.method, refusal.route);
  } else {
    return forbid(flow, scope, refusal, context, headers, request);
  }
  return { pass: true, context: flow.authInfo(context, request), headers };
}

/**
 * A refusal of the table, before the body is read: the decision (`forbidden` and the reason for a
 * 403; `refused` for a step-up's 401, whose challenge names the resource metadata as every 401's),
 * and the answer.
 */
export function forbid(
  flow: Flow,
  scope: RequestScope,
  refusal: Refusal,
  context: AuthContext | null,
  headers: Outcome['headers'] = NO_HEADERS,
  request?: AuthRequest,
): Outcome {
  const outcome = isAuthError(refusal.error) ? 'refused' : 'forbidden';
  report(flow, scope, outcome, refusal.error.reason, context?.userId ?? null, context?.method, refusal.route);
  return { pass: false, answer: refusalAnswer(refusal.error, flow.resourceMetadata, request), headers };
}

/** The one decision of a request, through its scope (a request that goes on is held; see `RequestScope`). */
function report(
  flow: Flow,
  scope: RequestScope,
  outcome: Parameters<typeof decisionOf>[1],
  reason: string | null,
  userId: string | null,
  method: AuthMethod = flow.method,
  route?: string,
): void {
  if (outcome === 'allowed' && scope.allowedUnheard(flow)) return;
  scope.decide(flow, decisionOf(scope, outcome, reason, userId, method, route ?? null), route);
}

/** Optional, and no credential at all: the handler's 401 would only ask for one. */
function isAnonymousAllowed(flow: Flow, error: unknown, request: EngineRequest): error is AuthError {
  return (
    flow.optional !== null &&
    isAuthError(error) &&
    error.reason === 'credentials_missing' &&
    !carriesCredentials(request, flow.optional)
  );
}

/**
 * method + userId, and the issuer when one of several vouched (its `alice` is not another's); a
 * caller without a userId (the no-auth fallback) is counted by address.
 */
function identityOf(context: AuthContext, address: string): string {
  if (context.userId === null) return `${context.method}@${address}`;
  // JSON keeps the two parts apart whatever characters they hold.
  if (context.issuer !== undefined) return `${context.method}:${JSON.stringify([context.issuer, context.userId])}`;
  return `${context.method}:${context.userId}`;
}

function refuse(flow: Flow, error: unknown, request: EngineRequest, scope: RequestScope): Outcome {
  if (!isAuthError(error)) {
    // A handler must reject with AuthError only; anything else is a bug, and we fail closed.
    report(flow, scope, 'error', 'handler_failed', null);
    flow.logger.error(`the ${request.method} ${pathOf(request.url)} handler failed (${kindOf(error)})`);
    return { pass: false, answer: INTERNAL_ANSWER, headers: NO_HEADERS };
  }
  // The table's key that asked for a caller (null where no table judged): what a 401 names.
  report(flow, scope, 'refused', error.reason, null, modeThatRefused(error) ?? flow.method, scope.askedBy ?? undefined);
  return { pass: false, answer: refusalAnswer(error, flow.resourceMetadata), headers: NO_HEADERS };
}
