import {
  isAuthError,
  type AuthContext,
  type AuthError,
  type AuthMethod,
  type ForbiddenError,
  type Logger,
} from '@authlayer/core';
import type { Refusal } from '../access/access-plan.js';
import type { startDecisionSpan } from '@authlayer/core/internal';
import type { Plan } from '../access/access-table.js';
import type { ScopeImplies } from '../access/rules.js';
import type { AuthDecision, DecisionListener } from '../decision.js';
import { isRefusal, logRefusal } from '../access/access-log.js';
import { kindOf } from './kind-of.js';

/** An OpenTelemetry span of one decision (see `startDecisionSpan`). */
export type Span = NonNullable<ReturnType<typeof startDecisionSpan>>;

/** Who hears of a decision. */
export interface ReportTo {
  readonly logger: Logger;
  readonly onDecision: DecisionListener | undefined;
  /** `access.report_only`: `would_refuse` and `forbidden` decisions are also one `warn` line each. */
  readonly logRefusals?: boolean;
  /** `access.log: refusals`: every decision that refuses or would refuse is one log line. */
  readonly logDecisions?: boolean;
}

/** Who hears of a decision, and the method of a decision that has no identity (a `Flow` is one). */
export interface Reporter extends ReportTo {
  readonly method: AuthMethod;
}

/** A decision let through, held until the answer starts: a guard after it may still refuse. */
interface Held {
  readonly to: ReportTo;
  readonly decision: AuthDecision;
  readonly route: string | undefined;
  /** When it was decided (the span ends then, not when the answer starts). */
  readonly at: number;
}

/**
 * What the engine knows of one request while it is decided and answered: one object per request,
 * made by the adapter and kept beside its request (Express: in `res.locals`; Fastify: a
 * decoration), instead of tables keyed by the request. It holds the `access` plan to check once the
 * caller is known, why `auth.optional` let the request through anonymously, the decision's span,
 * and the decision itself while it waits for the answer.
 */
export class RequestScope {
  /** From the start of the decision, for `durationMs`. */
  started = 0;
  /** The decision's span, while it is open. */
  span: Span | undefined = undefined;
  /** The matched `access` entries whose rules are checked once the caller is known. */
  plan: Plan | null = null;
  /** `auth.optional` let the request through without credentials: the 401 it was spared. */
  anonymousBecause: AuthError | null = null;
  /** The table key that asked for a caller (`Plan.askedBy`), for a 401's `rule`; null: no table asked. */
  askedBy: string | null = null;
  /** The method and path the `access` table judged the request as (null: it did not judge it). */
  judged: { readonly method: string; readonly path: string } | null = null;
  /** The clock of the flow that decided the request, for a rule checked after it (`max_age`). */
  now: () => number = Date.now;
  /** RFC 9728: the metadata URL of the flow that decided the request, for a later 401's challenge. */
  resourceMetadata: string | undefined = undefined;
  /**
   * `access.candidate`: judges the request by the candidate table once the caller is known, beside
   * the live verdict (see `loadCandidateJudge`); `undefined` without a candidate.
   */
  candidate: ((context: AuthContext, refusal: Refusal | null) => void) | undefined = undefined;
  /** `scopes.implies` of the flow that decided the request, for a guard's scope check after it. */
  implies: ScopeImplies | undefined = undefined;
  /**
   * Who hears of a refusal of a request that no flow decided (a `public` route, a CORS preflight
   * let through), and the method its decision names: a guard's 401 then is its one decision.
   */
  reportTo: Reporter | undefined = undefined;
  private held: Held | null = null;
  private done = false;

  /** @param requestId - the request's `X-Request-Id`, asked when a decision is made */
  constructor(private readonly requestId: () => string | null) {}

  /** The request's id, as the adapter knows it. */
  id(): string | null {
    return this.requestId();
  }

  /** True once the request's one decision was reported or is held. */
  get decided(): boolean {
    return this.done;
  }

  /**
   * The one decision of the request. A refusal is reported at once. A request that goes on
   * (`allowed`, `would_refuse`) is held until its answer starts (`answered`), so that a guard after
   * it that refuses reports its refusal instead (`refusedLater`): still one decision per request,
   * and the right one. Nobody listening: nothing is held.
   */
  decide(to: ReportTo, decision: AuthDecision, route: string | undefined): void {
    this.done = true;
    // The key that decided: given beside the decision by the MCP gate, inside it by the table.
    if (route !== undefined && decision.rule !== route) decision = { ...decision, rule: route };
    const span = this.span;
    if (decision.outcome !== 'allowed' && decision.outcome !== 'would_refuse') {
      this.span = undefined;
      return report(to, decision, span, route, undefined);
    }
    if (this.heard(to)) this.held = { to, decision, route, at: Date.now() };
  }

  /**
   * An `allowed` decision that nobody would hear of (no `onDecision`, no span, no `report_only`
   * warnings) is not built at all: the request is marked decided and `true` returned. What
   * `decide` would have held is dropped there too; this spares the record per request.
   */
  allowedUnheard(to: ReportTo): boolean {
    if (this.heard(to)) return false;
    this.done = true;
    return true;
  }

  /** Someone hears of a decision that goes on: a listener, a span, or `report_only`'s warnings. */
  private heard(to: ReportTo): boolean {
    // A guard may still refuse what was let through: access.log must hear of it.
    return (
      to.onDecision !== undefined || this.span !== undefined || to.logRefusals === true || to.logDecisions === true
    );
  }

  /**
   * A guard found no caller (no authentication ran before it): its 401 is the request's one
   * decision, `refused` with `error`'s reason under the guard's route. It replaces a held decision
   * as `refusedLater` does; on a request no flow decided, it is reported to `reportTo`. Nothing
   * when the request was decided already or nobody listens. May throw what `onDecision` threw.
   *
   * @param route - the route the guard runs on, as registered (`GET /reports/:id`)
   */
  refusedUnauthenticated(error: AuthError, route: string): void {
    if (this.held !== null) return this.refusedLater(error, route);
    const to = this.reportTo;
    if (this.done || to === undefined || !this.heard(to)) return;
    // No authentication ran (a decision would have marked the request decided or held): the
    // decision took the guard's moment, not the request's life so far.
    this.started = performance.now();
    this.decide(to, decisionOf(this, 'refused', error.reason, null, to.method, route), route);
  }

  /** True while a decision waits for the answer: the adapter then calls `answered` when it starts. */
  get holding(): boolean {
    return this.held !== null;
  }

  /**
   * The answer started (or the connection closed without one): the held decision is reported. A
   * listener that throws now is logged: the answer is on its way and can no longer become a 500.
   */
  answered(): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    const span = this.span;
    this.span = undefined;
    try {
      report(held.to, held.decision, span, held.route, held.at);
    } catch (error) {
      held.to.logger.error(`the onDecision listener failed (${kindOf(error)})`);
    }
  }

  /**
   * `access.report_only`: a check after the decision (an MCP key) would refuse the request it let
   * through: the held `allowed` decision becomes `would_refuse` with that reason and key, still held
   * until the answer starts. Nothing when none is held.
   */
  wouldRefuseLater(reason: string, route: string): void {
    const held = this.held;
    if (held === null || held.decision.outcome !== 'allowed') return;
    this.held = { ...held, decision: { ...held.decision, outcome: 'would_refuse', reason, rule: route }, route };
  }

  /**
   * A guard after the decision refused the request it let through: the held decision becomes that
   * refusal (`forbidden` with its reason, or `refused` for a 401: an anonymous caller's, or a
   * step-up's, which keeps the caller's userId), reported
   * now, before the answer. Nothing when none is held. May throw what `onDecision` threw.
   *
   * @param route - the route the guard runs on, as registered (`GET /reports/:id`)
   */
  refusedLater(error: AuthError | ForbiddenError, route: string): void {
    const held = this.held;
    if (held === null) return;
    this.held = null;
    const span = this.span;
    this.span = undefined;
    const forbidden = !isAuthError(error);
    report(
      held.to,
      {
        ...held.decision,
        outcome: forbidden ? 'forbidden' : 'refused',
        reason: error.reason,
        rule: route,
        // An anonymous caller's decision has no userId anyway; a step-up's names its caller.
        userId: held.decision.userId,
        durationMs: Math.round((performance.now() - this.started) * 1000) / 1000,
      },
      span,
      route,
      undefined,
    );
  }
}

/** What `reportWhenAnswered` needs of a response: Node's `ServerResponse` is one. */
export interface AnsweringResponse {
  writeHead: (...args: never[]) => unknown;
  once(event: 'close', listener: () => void): unknown;
}

/**
 * Reports the scope's held decision when the answer starts (`writeHead`, which every way of
 * answering goes through, Express's and Fastify's alike) or the connection closes without one.
 * `writeHead` is never put back: something else may have wrapped it since; once the decision is
 * reported this is a no-op. Only for a scope that holds a decision: nothing is wrapped otherwise.
 */
export function reportWhenAnswered(scope: RequestScope, response: AnsweringResponse): void {
  const writeHead = response.writeHead as (...args: unknown[]) => unknown;
  response.writeHead = function (this: unknown, ...args: unknown[]) {
    scope.answered();
    return writeHead.apply(this, args);
  } as AnsweringResponse['writeHead'];
  response.once('close', () => scope.answered());
}

/** The decision record: what was decided, by which key, for whom, how long it took; never a credential. */
export function decisionOf(
  scope: RequestScope,
  outcome: AuthDecision['outcome'],
  reason: string | null,
  userId: string | null,
  method: AuthMethod,
  rule: string | null = null,
): AuthDecision {
  return {
    outcome,
    reason,
    rule,
    userId,
    method,
    requestId: scope.id(),
    durationMs: Math.round((performance.now() - scope.started) * 1000) / 1000,
  };
}

/** To the span, the log (report_only's refusals) and `onDecision`; `at`: when it was decided. */
function report(
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
  if (to.logDecisions === true && isRefusal(decision)) {
    logRefusal(to.logger, decision);
  } else if (to.logRefusals === true && (decision.outcome === 'would_refuse' || decision.outcome === 'forbidden')) {
    // report_only is watched in the log too, listener or not: the route's key and the reason only.
    to.logger.warn(`access report_only: ${decision.outcome} ${route ?? 'request'} (${decision.reason})`);
  }
  to.onDecision?.(decision);
}
