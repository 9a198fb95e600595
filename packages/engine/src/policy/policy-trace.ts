import type { AccessDefault, AccessRule, AccessValue, AuthContext, AuthRequest, RouteParams } from '@authlayer/core';
import { stepUpRefusal } from '../access/claim-checks.js';
import { holdsRefusal, type ScopeImplies } from '../access/rules.js';

/** One key that applied to a case: what it said, and the field of its rule that decided. */
export interface TraceEntry {
  /** The `access` key (`GET /reports/:id`, `MCP tools/call delete_file`), or `default`. */
  readonly key: string;
  readonly verdict: 'allow' | 'refuse';
  /**
   * The field that decided: for a refusal, `roles`, `scopes`, `permissions`, `claims`, `any`,
   * `acr`, `max_age`, `tenant_param`, `params`, `modes`, `deny`, `default` or `authentication` (no
   * caller where one is needed); for an allow, the fields the caller held (`roles,scopes`), or
   * the word of the key (`public`, `optional`, `authenticated`, `default`).
   */
  readonly field: string;
  /** The refusal's reason (`role_missing`, ...); `null` when it allows. */
  readonly reason: string | null;
}

const FIELD_OF_REASON: Readonly<Record<string, string>> = {
  role_missing: 'roles',
  scope_missing: 'scopes',
  permission_missing: 'permissions',
  claim_mismatch: 'claims',
  param_mismatch: 'params',
};

const RULE_FIELDS = [
  ['roles', 'roles'],
  ['scopes', 'scopes'],
  ['permissions', 'permissions'],
  ['claims', 'claims'],
  ['any', 'any'],
  ['acr', 'acr'],
  ['maxAge', 'max_age'],
  ['tenantParam', 'tenant_param'],
  ['params', 'params'],
] as const;

/**
 * What one key says of a caller (`null`: nobody authenticated), by the checks the table itself
 * runs (`holdsRefusal`, the tenant, `stepUpRefusal`), in the table's order. `params`: the route's.
 */
export function traceKey(
  key: string,
  value: AccessValue,
  context: AuthContext | null,
  request: AuthRequest,
  params: RouteParams | null,
  now: () => number,
  implies?: ScopeImplies,
): TraceEntry {
  const refuse = (field: string, reason: string): TraceEntry => ({ key, verdict: 'refuse', field, reason });
  if (value === 'deny') return refuse('deny', 'route_denied');
  if (value === 'public' || value === 'optional') return { key, verdict: 'allow', field: value, reason: null };
  if (context === null) return refuse('authentication', 'credentials_missing');
  if (value === 'authenticated') return { key, verdict: 'allow', field: value, reason: null };
  if (value.modes !== null && !value.modes.includes(context.method as never)) {
    return refuse('modes', 'credentials_missing');
  }
  const held = holdsRefusal(value, context, request, now, implies);
  if (held !== null) {
    const own = holdsRefusal({ ...value, any: [] }, context, request, now, implies);
    return refuse(own === null ? 'any' : (FIELD_OF_REASON[held.reason] ?? held.reason), held.reason);
  }
  if (value.tenantParam !== null) {
    const param = params?.[value.tenantParam];
    if (typeof param !== 'string' || context.tenantId === null || param !== context.tenantId) {
      return refuse('tenant_param', 'tenant_mismatch');
    }
  }
  const stepUp = stepUpRefusal(value, context, now);
  if (stepUp !== null) {
    const acrFails = stepUpRefusal({ ...value, maxAge: undefined }, context, now) !== null;
    return refuse(acrFails ? 'acr' : 'max_age', stepUp.reason);
  }
  return { key, verdict: 'allow', field: fieldsOf(value), reason: null };
}

/** The `default` of the table, for a request no key matched. */
export function traceDefault(fallback: AccessDefault, context: AuthContext | null): TraceEntry {
  if (fallback === 'deny') return { key: 'default', verdict: 'refuse', field: 'default', reason: 'route_denied' };
  if (context === null) return { key: 'default', verdict: 'refuse', field: 'default', reason: 'credentials_missing' };
  return { key: 'default', verdict: 'allow', field: 'default', reason: null };
}

function fieldsOf(rule: AccessRule): string {
  const present = RULE_FIELDS.filter(([field]) => {
    const value = rule[field];
    return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null;
  });
  return present.map(([, name]) => name).join(',') || 'modes';
}
