import { isAuthError, type AuthError, type ForbiddenError, type Logger } from '@authlayer/core';
import type { startDecisionSpan } from '@authlayer/core/internal';
import type { Request, Response } from 'express';
import type { AuthDecision, DecisionListener } from '@authlayer/engine/internal';
import { kindOf } from './error-handler.js';

// Where a request's one decision goes (its span, report_only's log line, `onDecision`), and the
// decisions held until the answer starts. Apart from authenticate-request.ts so that the guards,
// which turn a held decision into their refusal, can reach it without an import cycle.

export type Span = NonNullable<ReturnType<typeof startDecisionSpan>>;

/** Who hears of a decision. */
export interface ReportTo {
  readonly logger: Logger;
  readonly onDecision: DecisionListener | undefined;
  /** `access.report_only`: `would_refuse` and `forbidden` decisions are also one `warn` line each. */
  readonly logRefusals?: boolean;
}

/** A decision let through, held until the answer starts: a guard after it may still refuse. */
interface Held {
  readonly to: ReportTo;
  readonly started: number;
  readonly decision: AuthDecision;
  readonly span: Span | undefined;
  readonly route: string | undefined;
  /** When it was decided (the span ends then, not when the answer starts). */
  readonly at: number;
}

const held = new WeakMap<Response, Held>();

/** Whether holding a decision could ever tell anyone anything (else it is not held at all). */
export function anyoneListens(to: ReportTo, span: Span | undefined): boolean {
  return to.onDecision !== undefined || span !== undefined || to.logRefusals === true;
}

/**
 * Holds the decision of a request that goes on until its answer starts (`writeHead`, which every
 * way of answering goes through) or the connection closes without one; a guard may turn it into
 * its refusal first (see `guardRefused`). A listener that throws then is logged: the answer is on
 * its way and can no longer become a 500.
 */
export function hold(res: Response, decision: Omit<Held, 'at'>): void {
  held.set(res, { ...decision, at: Date.now() });
  const writeHead = res.writeHead;
  // Never put back: another middleware may have wrapped ours since; once released this is a no-op.
  res.writeHead = function (this: Response, ...args: unknown[]) {
    release(res);
    return (writeHead as (...a: unknown[]) => Response).apply(this, args);
  } as Response['writeHead'];
  res.once('close', () => release(res));
}

function release(res: Response): void {
  const decision = held.get(res);
  if (decision === undefined) return;
  held.delete(res);
  try {
    report(decision.to, decision.decision, decision.span, decision.route, decision.at);
  } catch (error) {
    decision.to.logger.error(`the onDecision listener failed (${kindOf(error)})`);
  }
}

/**
 * A guard after `auth` (or `auth.access`) refused the request it let through: the held decision
 * becomes that refusal (`forbidden` with its reason, or `refused` for an anonymous caller's 401),
 * reported now, before the answer. Nothing when none is held (no authlayer middleware before the
 * guard). May throw what `onDecision` threw: the guard hands it to `next`, a 500.
 */
export function guardRefused(req: Request, res: Response, error: AuthError | ForbiddenError): void {
  const decision = held.get(res);
  if (decision === undefined) return;
  held.delete(res);
  const forbidden = !isAuthError(error);
  const durationMs = Math.round((performance.now() - decision.started) * 1000) / 1000;
  report(
    decision.to,
    {
      ...decision.decision,
      outcome: forbidden ? 'forbidden' : 'refused',
      reason: error.reason,
      userId: forbidden ? decision.decision.userId : null,
      durationMs,
    },
    decision.span,
    routeOf(req),
    undefined,
  );
}

/** The route a guard runs on, as registered (`GET /reports/:id`); never the request's own path. */
function routeOf(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.method} ${req.baseUrl}${path}` : req.method;
}

/** To the span, the log (report_only's refusals) and `onDecision`; `at`: when it was decided. */
export function report(
  to: ReportTo,
  decision: AuthDecision,
  span: Span | undefined,
  route: string | undefined,
  at: number | undefined,
): void {
  if (span !== undefined) {
    // What was decided, never with what: no credential, no identity.
    span.setAttributes({
      'authlayer.method': decision.method,
      'authlayer.outcome': decision.outcome,
      ...(decision.reason === null ? {} : { 'authlayer.reason': decision.reason }),
    });
    span.end(at);
  }
  if (to.logRefusals === true && (decision.outcome === 'would_refuse' || decision.outcome === 'forbidden')) {
    // report_only is watched in the log too, listener or not: the route's key and the reason only.
    to.logger.warn(`access report_only: ${decision.outcome} ${route ?? 'request'} (${decision.reason})`);
  }
  to.onDecision?.(decision);
}
