import {
  AuthError,
  createAuthContext,
  isAuthError,
  isFailedGuess,
  type AuthContext,
  type AuthMethod,
  type AuthRequest,
  type ClientLimits,
  type ForbiddenError,
  type Logger,
  type MaybePromise,
} from '@authlayer/core';
import { isPromiseLike, startDecisionSpan, withResourceMetadata, withSpan } from '@authlayer/core/internal';
import type { NextFunction, Request, Response } from 'express';
import type { AuthDecision, DecisionListener } from '@authlayer/engine/internal';
import { modeTriedFor } from '@authlayer/engine/internal';
import { carriesCredentials, isPreflight } from './credentials.js';
import { kindOf, sendError, sendRefusal } from './error-handler.js';
import { sendContinueIfAwaited } from './expect-continue.js';
import { markAnonymous } from './guards.js';
import { clientAddress } from '@authlayer/engine/internal';
import type { RateLimits } from '@authlayer/engine/internal';
import { rateLimitHeaders } from '@authlayer/engine/internal';
import { requestIdOf } from './request-id.js';
import { anyoneListens, hold, report, type Span } from './reported-decision.js';

/** What one request's authentication needs besides the request; built once per middleware. */
export interface AuthenticateDeps {
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
   * Null for `auth`. For `auth.optional`, the headers that carry a credential: a request with none
   * of them goes on with the anonymous context instead of the 401 `credentials_missing`.
   */
  readonly optional: readonly string[] | null;
  /** Let a CORS preflight through unauthenticated (`req.auth` unset). */
  readonly passPreflight: boolean;
  /**
   * Optional: asked once the caller is known, before the decision (`auth.access`): a refusal is a
   * 403 (or, with `reportOnly`, a `would_refuse` decision and the request goes on).
   */
  readonly authorize?: (req: Request, context: AuthContext) => Refusal | null;
  readonly reportOnly?: boolean;
  /**
   * `access.report_only`: each `would_refuse` and `forbidden` decision is also one `warn` line of
   * the logger (outcome, route key, reason), whether or not the app listens with `onDecision`.
   */
  readonly logRefusals?: boolean;
  /** RFC 9728: the metadata URL every 401's Bearer challenge names (`resource_metadata`). */
  readonly resourceMetadata?: string;
  /** The limits of the client behind a context (the handler's `limitsOf`), for `rate_limit`. */
  readonly limitsOf?: (context: AuthContext) => ClientLimits | undefined;
}

/** A 403 of the table, and the key that refused (`default` for `default: deny`). */
export interface Refusal {
  readonly error: ForbiddenError;
  readonly route: string;
}

const ANONYMOUS = createAuthContext({ method: 'none' });

type Verdict = Pick<AuthDecision, 'outcome' | 'reason' | 'userId'> & { readonly method?: AuthMethod };

/**
 * One request: a CORS preflight passes untouched (no decision, `req.auth` unset); else the
 * failed-auth limit of its address (before any verification), the handler, the identity's request
 * limit; then exactly one decision, reported once, and next() or an answer.
 *
 * Without rate limits, a handler that answers synchronously (`authenticateNow`) gets `next()`
 * called in the same turn, and nothing is returned; otherwise a Promise that settles once the
 * request was passed on or answered. Either way it may throw (or reject) only with what an
 * `onDecision` listener or `next` threw: the caller hands that to `next(error)`, a 500.
 */
export function authenticateRequest(
  deps: AuthenticateDeps,
  req: Request,
  res: Response,
  next: NextFunction,
): void | Promise<void> {
  if (deps.passPreflight && isPreflight(req)) return next();
  // OpenTelemetry: one span per decision (null without an SDK), active while the handler runs so
  // that key set fetches, introspections and Redis calls are its children; `decide` ends it.
  const span = startDecisionSpan();
  if (span === null) return decideFor(deps, req, res, next);
  spans.set(res, span);
  return withSpan(span, () => decideFor(deps, req, res, next));
}

const spans = new WeakMap<Response, Span>();

function decideFor(deps: AuthenticateDeps, req: Request, res: Response, next: NextFunction): void | Promise<void> {
  const started = deps.onDecision === undefined ? 0 : performance.now();
  if (deps.limits !== null) return authenticateLimited(deps, deps.limits, req, res, next, started);
  let answer: MaybePromise<AuthContext>;
  try {
    answer = deps.authenticate(req);
  } catch (error) {
    return failed(deps, error, req, res, next, started);
  }
  if (!isPromiseLike(answer)) return allow(deps, answer, req, res, next, started);
  return answer.then(
    (context) => allow(deps, context, req, res, next, started),
    (error: unknown) => failed(deps, error, req, res, next, started),
  );
}

/** With `rate_limit`: the limits are asked around the handler (their stores may be remote). */
async function authenticateLimited(
  deps: AuthenticateDeps,
  limits: RateLimits,
  req: Request,
  res: Response,
  next: NextFunction,
  started: number,
): Promise<void> {
  const address = clientAddress(req, deps.trustProxy);
  // Reserved before verifying, so requests that arrive together cannot all pass a check first.
  const reservation = await limits.reserveFailure(address);
  if (typeof reservation === 'number') {
    decide(deps, res, started, { outcome: 'rate_limited', reason: 'too_many_failures', userId: null });
    return tooMany(req, res, reservation);
  }
  let context: AuthContext;
  try {
    context = await deps.authenticate(req);
  } catch (error) {
    if (!isAnonymousAllowed(deps, error, req)) {
      // Only refused client credentials are guesses (see isFailedGuess): not a provider's outage.
      if (isAuthError(error) && isFailedGuess(error.reason)) reservation.keep();
      else await reservation.release();
      return refuse(deps, error, req, res, started);
    }
    context = ANONYMOUS;
    markAnonymous(req, error);
  }
  await reservation.release();
  const verdict = await limits.consumeRequest(identityOf(context, address), deps.limitsOf?.(context));
  if (verdict.states.length > 0) {
    const { policy, state } = rateLimitHeaders(verdict.states);
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', state);
  }
  if (verdict.wait !== null) {
    decide(deps, res, started, { outcome: 'rate_limited', reason: 'too_many_requests', userId: context.userId });
    return tooMany(req, res, verdict.wait);
  }
  return allow(deps, context, req, res, next, started);
}

/**
 * The handler threw or rejected: anonymous for `auth.optional` without credentials, else refused
 * one microtask later: Node's parser marks a request without a body `complete` only after it
 * emitted it, and the refusal must know whether a body is still to come (see `closeUnreadBody`).
 */
function failed(
  deps: AuthenticateDeps,
  error: unknown,
  req: Request,
  res: Response,
  next: NextFunction,
  started: number,
) {
  if (!isAnonymousAllowed(deps, error, req))
    return Promise.resolve().then(() => refuse(deps, error, req, res, started));
  markAnonymous(req, error);
  return allow(deps, ANONYMOUS, req, res, next, started);
}

function allow(
  deps: AuthenticateDeps,
  context: AuthContext,
  req: Request,
  res: Response,
  next: NextFunction,
  started: number,
): void | Promise<void> {
  const refusal = deps.authorize === undefined ? null : deps.authorize(req, context);
  if (refusal === null) {
    decide(deps, res, started, { outcome: 'allowed', reason: null, userId: context.userId, method: context.method });
  } else if (deps.reportOnly === true) {
    decide(
      deps,
      res,
      started,
      { outcome: 'would_refuse', reason: refusal.error.reason, userId: context.userId, method: context.method },
      refusal.route,
    );
  } else {
    return forbid(deps, refusal, req, res, started, context);
  }
  req.auth = context;
  // Expect: 100-continue (with continueAfterAuthentication): only now is the client told to upload.
  sendContinueIfAwaited(req, res);
  next();
}

/**
 * 403: the decision (`forbidden` and the reason), and the refusal, before the body is read; no
 * `100 Continue` was sent, and an upload still to come closes the connection. One microtask later,
 * as `failed` refuses: only then does `req.complete` say whether a body is to come.
 */
export async function forbid(
  deps: AuthenticateDeps,
  refusal: Refusal,
  req: Request,
  res: Response,
  started: number,
  context: AuthContext | null,
): Promise<void> {
  await Promise.resolve();
  decide(
    deps,
    res,
    started,
    {
      outcome: 'forbidden',
      reason: refusal.error.reason,
      userId: context?.userId ?? null,
      ...(context === null ? {} : { method: context.method }),
    },
    refusal.route,
  );
  closeUnreadBody(req, res);
  sendRefusal(res, refusal.error);
}

/**
 * The one decision of a request. A refusal is reported at once. A request that goes on
 * (`allowed`, `would_refuse`) is held until its answer starts, so that a guard after `auth` that
 * answers 403 reports it as `forbidden` instead: still one decision per request, and the right one.
 */
function decide(deps: AuthenticateDeps, res: Response, started: number, verdict: Verdict, route?: string): void {
  const span = spans.get(res);
  if (span !== undefined) spans.delete(res);
  const decision: AuthDecision = {
    ...verdict,
    method: verdict.method ?? deps.method,
    requestId: requestIdOf(res),
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
  };
  if (verdict.outcome !== 'allowed' && verdict.outcome !== 'would_refuse') {
    return report(deps, decision, span, route, undefined);
  }
  if (anyoneListens(deps, span)) hold(res, { to: deps, started, decision, span, route });
}

/** `auth.optional`, and no credential at all: the handler's 401 would only ask for one. */
function isAnonymousAllowed(deps: AuthenticateDeps, error: unknown, req: Request): error is AuthError {
  return (
    deps.optional !== null &&
    isAuthError(error) &&
    error.reason === 'credentials_missing' &&
    !carriesCredentials(req, deps.optional)
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

function refuse(deps: AuthenticateDeps, error: unknown, req: Request, res: Response, started: number): void {
  closeUnreadBody(req, res);
  if (!isAuthError(error)) {
    // A handler must reject with AuthError only; anything else is a bug, and we fail closed.
    decide(deps, res, started, { outcome: 'error', reason: 'handler_failed', userId: null });
    deps.logger.error(`the ${req.method} ${req.path} handler failed (${kindOf(error)})`);
    return sendError(res, 500, 'internal', 'internal error');
  }
  decide(deps, res, started, { outcome: 'refused', reason: error.reason, userId: null, method: modeTriedFor(req) });
  const metadata = deps.resourceMetadata;
  sendRefusal(
    res,
    metadata === undefined ? error : new AuthError(error.reason, withResourceMetadata(error.challenge, metadata)),
  );
}

/** 429 `rate_limited` with `Retry-After` in whole seconds (at least 1). */
function tooMany(req: Request, res: Response, waitMs: number): void {
  closeUnreadBody(req, res);
  res.setHeader('Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000))));
  sendError(res, 429, 'rate_limited', 'too many requests; retry after the number of seconds in Retry-After');
}

/**
 * The body was never read: close the connection rather than drain an unauthenticated upload.
 * Asked of Node's parser state (`complete` turns true once the message has ended), never of
 * `req.headers`, which keeps only the first `maxHeadersCount` headers.
 */
function closeUnreadBody(req: Request, res: Response): void {
  if (!req.complete) res.setHeader('Connection', 'close');
}
