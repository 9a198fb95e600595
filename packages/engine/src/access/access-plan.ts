import {
  ForbiddenError,
  type AccessDefault,
  type AuthContext,
  type AuthRequest,
  type RouteParams,
} from '@authlayer/core';
import { isPreflight } from './credentials.js';
import { matchEntries, planFor, type AccessTable, type MatchedEntry, type Plan } from './access-table.js';
import { holdsRefusal, isScopeRefusal, joinScopeRefusals, type RuleRefusal, type ScopeImplies } from './rules.js';
import { stepUpRefusal } from './claim-checks.js';

/**
 * A refusal of the table (a 403, or a step-up's 401), and the key that refused (`default` for
 * `default: deny`).
 */
export interface Refusal {
  readonly error: RuleRefusal;
  readonly route: string;
}

export const ROUTE_DENIED = new ForbiddenError('route_denied', null, []);
const TENANT_MISMATCH = new ForbiddenError('tenant_mismatch', null, []);

/**
 * The check made once the caller is known: `deny` (only reached with `report_only`), then every
 * matched rule object (its names and claims, one of its `any`, its tenant parameter), then the
 * step-ups of them all (`acr`, `max_age`): a new authentication is asked for only when nothing
 * else refuses the caller. Scopes are refused only when nothing else is missing (no scope would
 * let the caller in otherwise), naming every scope the refusing keys need. A refusal names the key
 * that refused, for the decision's log line. `now`: the middleware's clock, in ms; `implies`:
 * `scopes.implies`.
 */
export function authorizeByPlan(
  plan: Plan | null,
  request: AuthRequest,
  context: AuthContext,
  now: () => number,
  implies?: ScopeImplies,
): Refusal | null {
  if (plan === null) return null;
  if (plan.deniedBy !== null) return { error: ROUTE_DENIED, route: plan.deniedBy };
  // Most routes ask for a caller and nothing more: no rule to check, nothing made per request.
  if (plan.rules.length === 0) return null;
  const scopes: { error: RuleRefusal; route: string }[] = [];
  for (const { rule, params, key } of plan.rules) {
    const refusal = holdsRefusal(rule, context, request, now, implies);
    if (refusal !== null && !isScopeRefusal(refusal)) return { error: refusal, route: key };
    if (rule.tenantParam !== null && !sameTenant(params, rule.tenantParam, context)) {
      return { error: TENANT_MISMATCH, route: key };
    }
    if (refusal !== null) scopes.push({ error: refusal, route: key });
  }
  if (scopes.length > 0) {
    const error = joinScopeRefusals(
      scopes.map((each) => each.error as ForbiddenError),
      request,
    );
    return { error, route: scopes[0]!.route };
  }
  for (const { rule, key } of plan.rules) {
    const refusal = stepUpRefusal(rule, context, now);
    if (refusal !== null) return { error: refusal, route: key };
  }
  return null;
}

/** Exactly equal, both strings; a null tenant never matches, nor a splat's list. */
function sameTenant(params: RouteParams | null, name: string, context: AuthContext): boolean {
  const value = params?.[name];
  return typeof value === 'string' && context.tenantId !== null && value === context.tenantId;
}

// Every method a key may name (core's access schema): asking each finds every entry of a path.
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * What the table asks of a request to `method` and `path`. An `OPTIONS` request is answered by the
 * routers for every route of its path (`Allow: GET, HEAD`), so it is judged by the entries of its
 * path:
 * - a CORS preflight by the entries of the method it announces, when they make it public or
 *   optional (a browser sends a preflight without credentials; the contract's rule);
 * - else by the `OPTIONS` and `*` entries of the path, when one matches (a handler of its own);
 * - else by every entry of the path, whatever its method, all applying (as closed as the most
 *   closed: `OPTIONS /admin` under `* /admin{/*path}: deny` stays 403);
 * - else by `default`.
 */
export function planOf(
  table: AccessTable,
  method: string,
  path: string,
  request: Pick<AuthRequest, 'method' | 'headers'>,
  fallback: AccessDefault,
): Plan {
  if (method !== 'OPTIONS') {
    // What the entries ask of a method and path is the same for every request: made once.
    let plan = table.plans.get(fallback, method, path);
    if (plan === undefined) {
      plan = planFor(matchEntries(table, method, path), fallback);
      table.plans.set(fallback, method, path, plan);
    }
    return plan;
  }
  if (isPreflight(request)) {
    const announced = String(request.headers['access-control-request-method']).toUpperCase();
    const plan = planFor(matchEntries(table, announced, path), fallback);
    if (!plan.denied && plan.rules.length === 0 && plan.authentication !== 'required') return plan;
  }
  const own = matchEntries(table, 'OPTIONS', path);
  if (own.length > 0) return planFor(own, fallback);
  const seen = new Set<MatchedEntry['entry']>();
  const any: MatchedEntry[] = [];
  for (const each of METHODS) {
    for (const matched of matchEntries(table, each, path)) {
      if (seen.has(matched.entry)) continue;
      seen.add(matched.entry);
      any.push(matched);
    }
  }
  return planFor(any, fallback);
}
