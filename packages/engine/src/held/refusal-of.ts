import type { AuthContext, AuthRequest } from '@authlayer/core';
import { authorizeByPlan } from '../access/access-plan.js';
import type { Plan } from '../access/access-table.js';
import type { ScopeImplies } from '../access/rules.js';

/** Why a held request ends after a reload, and the key that decided (`null`: no table judged it). */
export interface HeldRefusal {
  readonly reason: string;
  readonly rule: string | null;
}

/**
 * Why a request of this plan would now be refused to this caller, or `null`: the route denied,
 * a credential required of an anonymous caller, or of a mode the route or the config no longer
 * takes (answered as no credential, as a request would be), then the plan's rules (a step-up
 * included: `step_up_required`). With the key that refused (`rule`).
 */
export function refusalOf(
  plan: Plan | null,
  context: AuthContext,
  methods: readonly string[],
  now: () => number,
  implies?: ScopeImplies,
): HeldRefusal | null {
  const missing = (rule: string | null) => ({ reason: 'credentials_missing', rule });
  if (plan === null) return context.method === 'none' || methods.includes(context.method) ? null : missing(null);
  if (plan.denied) return { reason: 'route_denied', rule: plan.deniedBy };
  if (plan.authentication === 'none') return null;
  if (context.method === 'none') return plan.authentication === 'required' ? missing(plan.askedBy) : null;
  if (!methods.includes(context.method)) return missing(plan.askedBy);
  if (plan.modes !== null && !plan.modes.includes(context.method)) return missing(plan.askedBy);
  // A rule's max_age by the engine's clock, as a request's.
  const refusal = authorizeByPlan(plan, NO_HEADERS, context, now, implies);
  return refusal === null ? null : { reason: refusal.error.reason, rule: refusal.route };
}

// The rules are judged on the caller alone: a request's headers only choose a 403's challenge.
const NO_HEADERS: AuthRequest = Object.freeze({ headers: Object.freeze({}) });
