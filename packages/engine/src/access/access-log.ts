import type { Logger } from '@authlayer/core';
import type { AuthDecision } from '../decision.js';

// `access.log: refusals`: one line per decision that refuses, would refuse or ends, through the
// middleware's logger, so an app of your own sees what its table refused without an onDecision.

const REFUSALS: ReadonlySet<AuthDecision['outcome']> = new Set(['forbidden', 'refused', 'would_refuse', 'ended']);

// A request id as the adapters echo one; anything else (a custom id of any shape) stays out of the line.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** True for the outcomes `access.log: refusals` logs (and that name the deciding key in `rule`). */
export function isRefusal(decision: AuthDecision): boolean {
  return REFUSALS.has(decision.outcome);
}

/**
 * The decision as one line: outcome, reason, the key that decided (`rule`, quoted), the mode and
 * the request id. Never a path (it may hold anything), a credential or an identity. `warn` for a
 * `would_refuse` (what `report_only` watches), `info` for the others.
 *
 * @example
 * // info: access: forbidden role_missing rule="GET /reports/:id" method=jwt request_id=7f3c
 */
export function logRefusal(logger: Logger, decision: AuthDecision): void {
  const rule = decision.rule === null ? '' : ` rule=${JSON.stringify(decision.rule)}`;
  const id = decision.requestId !== null && SAFE_ID.test(decision.requestId) ? ` request_id=${decision.requestId}` : '';
  const line = `access: ${decision.outcome} ${decision.reason ?? ''}${rule} method=${decision.method}${id}`;
  if (decision.outcome === 'would_refuse') logger.warn(line);
  else logger.info(line);
}
