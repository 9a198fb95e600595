import type { AuthContext } from '@authlayer/core';
import type { Refusal } from '../access/access-plan.js';
import type { AuthDecision } from '../decision.js';
import { RequestScope, type ReportTo } from '../request/scope.js';

const UNHEARD: AuthDecision = {
  outcome: 'allowed',
  method: 'none',
  reason: null,
  rule: null,
  userId: null,
  requestId: null,
  durationMs: 0,
};

/**
 * A request's scope that keeps its one decision and the key that made it, and tells nobody: no
 * `onDecision`, no log line, no span left open. For a policy case and for `explain`, whose
 * judgement is never the request's decision.
 */
export class RecordingScope extends RequestScope {
  recorded: { decision: AuthDecision; route: string | null } | null = null;
  /** The caller the table's rules were checked against (set by the decision), else `null`. */
  caller: AuthContext | null = null;

  constructor() {
    super(() => null);
    this.candidate = (context: AuthContext, _refusal: Refusal | null) => void (this.caller = context);
  }

  override decide(_to: ReportTo, decision: AuthDecision, route: string | undefined): void {
    this.recorded = { decision, route: route ?? null };
    // A decision span (with an OpenTelemetry SDK) is ended unreported: this is no decision.
    this.span?.end();
    this.span = undefined;
  }

  override wouldRefuseLater(reason: string, route: string): void {
    // Nobody listens here, so an allowed decision may not have been built: the refusal is kept anyway.
    const decision = this.recorded?.decision ?? UNHEARD;
    this.recorded = { decision: { ...decision, outcome: 'would_refuse', reason, rule: route }, route };
  }
}
