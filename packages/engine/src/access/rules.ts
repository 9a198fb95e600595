import {
  ForbiddenError,
  insufficientScopeChallenge,
  readBearerToken,
  type AccessRequirement,
  type AccessRule,
  type AuthContext,
  type AuthError,
  type AuthRequest,
  type ForbiddenReason,
} from '@authlayer/core';
import { claimRefusal, stepUpRefusal } from './claim-checks.js';

// The checks of an `access` rule object once the caller is known: the table's, and the guards' of
// every adapter (`requireRoles`, `requireAccess`, ...), so that each answers the same 403.

/** The lists of an AuthContext a guard can require names from. */
export type Held = 'permissions' | 'scopes' | 'roles';

const REASON: Readonly<Record<Held, ForbiddenReason>> = {
  permissions: 'permission_missing',
  scopes: 'scope_missing',
  roles: 'role_missing',
};

/**
 * The names of `required` that `context[held]` lacks. Only an exact entry of a real list counts:
 * a `req.auth` that something else set, with a string where the list should be, holds nothing
 * (a string's `includes` would grant `admin` to `superadmin`).
 */
export function missingNames(context: AuthContext, held: Held, required: readonly string[]): string[] {
  const list: unknown = (context as Partial<AuthContext>)[held];
  if (!Array.isArray(list)) return [...required];
  return required.filter((name) => !list.includes(name));
}

/** The 403 of a missing name, with RFC 6750 `insufficient_scope` when a Bearer credential came. */
export function forbidden(
  held: Held,
  missing: string[],
  required: readonly string[],
  request: AuthRequest,
): ForbiddenError {
  const reason = REASON[held];
  const withChallenge = readBearerToken(request).kind === 'token';
  const error = new ForbiddenError(reason, null, missing);
  if (!withChallenge) return error;
  // RFC 6750 §3.1: insufficient_scope, and `scope` lists the scopes the resource needs.
  const challenge = insufficientScopeChallenge(error.message, held === 'scopes' ? required : []);
  return new ForbiddenError(reason, challenge, missing);
}

/** A refusal of a rule: 403 (a name, a claim, a tenant) or 401 `step_up_required` (RFC 9470). */
export type RuleRefusal = ForbiddenError | AuthError;

const HELD: readonly Held[] = ['permissions', 'scopes', 'roles'];

/**
 * The refusal of the first part of a requirement the caller lacks, or null when it holds it all:
 * its names (permissions, scopes, roles), its claims, then its step-up. `now`: the clock, in ms.
 */
export function requirementRefusal(
  requirement: AccessRequirement,
  context: AuthContext,
  request: AuthRequest,
  now: () => number = Date.now,
): RuleRefusal | null {
  return heldRefusal(requirement, context, request) ?? stepUpRefusal(requirement, context, now);
}

/** The names and claims a requirement asks the caller to hold: a 403 for the first one lacking. */
function heldRefusal(requirement: AccessRequirement, context: AuthContext, request: AuthRequest) {
  for (const held of HELD) {
    const required = requirement[held];
    if (required.length === 0) continue;
    const missing = missingNames(context, held, required);
    if (missing.length > 0) return forbidden(held, missing, required, request);
  }
  return claimRefusal(requirement, context);
}

/**
 * What a rule object asks the caller to hold, before its step-up: its own names and claims, then
 * one of its `any` (each entry whole, its step-up included; the first entry's refusal if none holds).
 */
export function holdsRefusal(
  rule: AccessRule,
  context: AuthContext,
  request: AuthRequest,
  now: () => number = Date.now,
): RuleRefusal | null {
  const own = heldRefusal(rule, context, request);
  if (own !== null || rule.any.length === 0) return own;
  let first: RuleRefusal | null = null;
  for (const entry of rule.any) {
    const refusal = requirementRefusal(entry, context, request, now);
    if (refusal === null) return null;
    first ??= refusal;
  }
  return first;
}

/**
 * The one check of a rule object, for the table and every adapter's guards: {@link holdsRefusal},
 * then its own step-up (`acr`, `max_age`), last: a new authentication is asked for only when
 * nothing else refuses the caller, who would otherwise step up only to be refused anyway.
 */
export function ruleRefusal(
  rule: AccessRule,
  context: AuthContext,
  request: AuthRequest,
  now: () => number = Date.now,
): RuleRefusal | null {
  return holdsRefusal(rule, context, request, now) ?? stepUpRefusal(rule, context, now);
}

/** False only for a rule that asks for nothing but a step-up: it answers 401, never 403. */
export function mayForbid(rule: AccessRule): boolean {
  const stepUp = rule.acr !== undefined || rule.maxAge !== undefined;
  const names = rule.permissions.length + rule.scopes.length + rule.roles.length;
  return !stepUp || names > 0 || rule.claims !== undefined || rule.any.length > 0 || rule.tenantParam !== null;
}
