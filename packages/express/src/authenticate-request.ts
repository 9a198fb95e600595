import { createAuthContext, isAuthError, type AuthContext, type AuthError, type AuthHandler, type AuthMethod, type Logger } from '@authlayer/core';
import type { NextFunction, Request, Response } from 'express';
import type { AuthDecision, DecisionListener } from './decision.js';
import { modeTriedFor } from './combine-handlers.js';
import { carriesCredentials, isPreflight } from './credentials.js';
import { kindOf, sendError, sendRefusal } from './error-handler.js';
import { sendContinueIfAwaited } from './expect-continue.js';
import { markAnonymous } from './guards.js';
import { clientAddress } from './rate-limit/client-address.js';
import type { RateLimits } from './rate-limit/rate-limits.js';
import { requestIdOf } from './request-id.js';

/** What one request's authentication needs besides the request. */
export interface AuthenticateDeps {
  readonly handler: AuthHandler;
  readonly logger: Logger;
  readonly limits: RateLimits | null;
  readonly trustProxy: boolean;
  readonly onDecision: DecisionListener | undefined;
  /**
   * Null for `auth`. For `auth.optional`, the headers that carry a credential: a request with none
   * of them goes on with the anonymous context instead of the 401 `credentials_missing`.
   */
  readonly optional: readonly string[] | null;
}

const ANONYMOUS = createAuthContext({ method: 'none' });

type Verdict = Pick<AuthDecision, 'outcome' | 'reason' | 'userId'> & { readonly method?: AuthMethod };

/**
 * One request: a CORS preflight passes untouched (no decision, `req.auth` unset); else the failed-auth limit of its address (before any verification), the handler, the
 * identity's request limit; then exactly one decision, reported once, and next() or an answer.
 */
export async function authenticateRequest(deps: AuthenticateDeps, req: Request, res: Response, next: NextFunction) {
  if (isPreflight(req)) return next();
  const started = performance.now();
  const decide = (verdict: Verdict) =>
    deps.onDecision?.({
      ...verdict,
      method: verdict.method ?? deps.handler.method,
      requestId: requestIdOf(res),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
  const address = deps.limits === null ? '' : clientAddress(req, deps.trustProxy);
  const blocked = await deps.limits?.failedAuthBlock(address);
  if (blocked !== null && blocked !== undefined) {
    decide({ outcome: 'rate_limited', reason: 'too_many_failures', userId: null });
    return tooMany(req, res, blocked);
  }
  let context: AuthContext;
  try {
    context = await deps.handler.authenticate(req);
  } catch (error) {
    if (!isAnonymousAllowed(deps, error, req)) return refuse(deps, error, req, res, decide, address);
    context = ANONYMOUS;
    markAnonymous(req, error);
  }
  const wait = await deps.limits?.consumeRequest(identityOf(context, address));
  if (wait !== null && wait !== undefined) {
    decide({ outcome: 'rate_limited', reason: 'too_many_requests', userId: context.userId });
    return tooMany(req, res, wait);
  }
  decide({ outcome: 'allowed', reason: null, userId: context.userId, method: context.method });
  req.auth = context;
  // Expect: 100-continue (with continueAfterAuthentication): only now is the client told to upload.
  sendContinueIfAwaited(req, res);
  next();
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

/** method + userId; a caller without a userId (the no-auth fallback) is counted by address. */
function identityOf(context: AuthContext, address: string): string {
  return context.userId === null ? `${context.method}@${address}` : `${context.method}:${context.userId}`;
}

async function refuse(
  deps: AuthenticateDeps,
  error: unknown,
  req: Request,
  res: Response,
  decide: (verdict: Verdict) => void,
  address: string,
) {
  closeUnreadBody(req, res);
  if (isAuthError(error)) {
    // No credentials at all is not a guess: only presented credentials count as a failure.
    if (error.reason !== 'credentials_missing') await deps.limits?.recordFailure(address);
    decide({ outcome: 'refused', reason: error.reason, userId: null, method: modeTriedFor(req) });
    return sendRefusal(res, error);
  }
  // A handler must reject with AuthError only; anything else is a bug, and we fail closed.
  decide({ outcome: 'error', reason: 'handler_failed', userId: null });
  deps.logger.error(`the ${req.method} ${req.path} handler failed (${kindOf(error)})`);
  sendError(res, 500, 'internal', 'internal error');
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
