import {
  ForbiddenError,
  isAuthError,
  grantedScopes,
  insufficientScopeChallenge,
  readBearerToken,
  type AccessRequirement,
  type AccessRule,
  type AuthContext,
  type AuthError,
  type AuthRequest,
  type ForbiddenReason,
  type ScopesConfig,
} from '@authlayer/core';
import { readSchemeToken } from '@authlayer/core/internal';
import { claimRefusal, stepUpRefusal } from './claim-checks.js';

// The checks of an `access` rule object once the caller is known: the table's, and the guards' of
// every adapter (`requireRoles`, `requireAccess`, ...), so that each answers the same 403.

/** `scopes.implies`, closed: a scope → every scope it grants besides itself. */
export type ScopeImplies = ScopesConfig['implies'];

const NO_IMPLIES: ScopeImplies = Object.freeze({});

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
 * (a string's `includes` would grant `admin` to `superadmin`). A scope also counts when a held one
 * implies it (`implies`, see `scopes.implies`).
 */
export function missingNames(
  context: AuthContext,
  held: Held,
  required: readonly string[],
  implies: ScopeImplies = NO_IMPLIES,
): string[] {
  const list: unknown = (context as Partial<AuthContext>)[held];
  if (!Array.isArray(list)) return [...required];
  if (held !== 'scopes' || Object.keys(implies).length === 0) return required.filter((name) => !list.includes(name));
  const granted = grantedScopes(
    list.filter((name): name is string => typeof name === 'string'),
    implies,
  );
  return required.filter((name) => !granted.has(name));
}

// The scopes a refusal for want of scopes names in its challenge: the rule's, as written.
const NEEDED = new WeakMap<ForbiddenError, readonly string[]>();

/** The scopes the rule behind a `scope_missing` refusal needs, all of them (empty for any other). */
export function neededScopes(error: ForbiddenError): readonly string[] {
  return NEEDED.get(error) ?? [];
}

/** The 403 of a missing name, with RFC 6750 `insufficient_scope` when a Bearer credential came. */
export function forbidden(
  held: Held,
  missing: string[],
  required: readonly string[],
  request: AuthRequest,
): ForbiddenError {
  const reason = REASON[held];
  const withChallenge = readBearerToken(request).kind === 'token' || sentWithDpop(request);
  const error = new ForbiddenError(reason, null, missing);
  const needed = held === 'scopes' ? withoutOfflineAccess(required) : [];
  if (!withChallenge) {
    NEEDED.set(error, needed);
    return error;
  }
  // RFC 6750 §3.1: insufficient_scope, and `scope` lists the scopes the resource needs.
  const answered = new ForbiddenError(reason, insufficientScopeChallenge(error.message, needed), missing);
  NEEDED.set(answered, needed);
  return answered;
}

/**
 * `scopes` without `offline_access` (MCP: it SHOULD NOT be in a challenge nor `scopes_supported`; a
 * refresh token is the client's to ask for, no operation needs it).
 */
export function withoutOfflineAccess(scopes: readonly string[]): readonly string[] {
  return scopes.includes('offline_access') ? scopes.filter((name) => name !== 'offline_access') : scopes;
}

/**
 * Several refusals for want of scopes as one (the keys of a request, or of an MCP message, that
 * each lack some): every missing scope, and a challenge naming every scope they need, as written.
 */
export function joinScopeRefusals(refusals: readonly ForbiddenError[], request: AuthRequest): ForbiddenError {
  if (refusals.length === 1) return refusals[0]!;
  const missing = [...new Set(refusals.flatMap((refusal) => refusal.missing))];
  return forbidden('scopes', missing, [...new Set(refusals.flatMap(neededScopes))], request);
}

/** True for a request whose token came as `Authorization: DPoP <token>` (a DPoP-bound token). */
export function sentWithDpop(request: AuthRequest): boolean {
  return readSchemeToken(request, 'dpop').kind === 'token';
}

/** A refusal for want of scopes alone: the only one a scope challenge may answer. */
export function isScopeRefusal(refusal: RuleRefusal): refusal is ForbiddenError {
  return !isAuthError(refusal) && refusal.reason === 'scope_missing';
}

/** A refusal of a rule: 403 (a name, a claim, a tenant) or 401 `step_up_required` (RFC 9470). */
export type RuleRefusal = ForbiddenError | AuthError;

// Scopes last: a refusal names the scopes (and challenges for them) only when nothing else is
// missing, since no scope would let in a caller that lacks a role (MCP's scope challenge).
const HELD: readonly Held[] = ['permissions', 'roles'];

/**
 * The refusal of the first part of a requirement the caller lacks, or null when it holds it all:
 * its names (permissions, scopes, roles), its claims, then its step-up. `now`: the clock, in ms.
 */
export function requirementRefusal(
  requirement: AccessRequirement,
  context: AuthContext,
  request: AuthRequest,
  now: () => number,
  implies: ScopeImplies,
): RuleRefusal | null {
  return heldRefusal(requirement, context, request, implies) ?? stepUpRefusal(requirement, context, now);
}

/**
 * The names and claims a requirement asks the caller to hold: a 403 for the first one lacking,
 * permissions, roles and claims before scopes (see `HELD`).
 */
function heldRefusal(
  requirement: AccessRequirement,
  context: AuthContext,
  request: AuthRequest,
  implies: ScopeImplies,
): RuleRefusal | null {
  for (const held of HELD) {
    const required = requirement[held];
    if (required.length === 0) continue;
    const missing = missingNames(context, held, required);
    if (missing.length > 0) return forbidden(held, missing, required, request);
  }
  const claim = claimRefusal(requirement, context);
  if (claim !== null || requirement.scopes.length === 0) return claim;
  const missing = missingNames(context, 'scopes', requirement.scopes, implies);
  return missing.length === 0 ? null : forbidden('scopes', missing, requirement.scopes, request);
}

/**
 * What a rule object asks the caller to hold, before its step-up: its own names and claims, then
 * one of its `any` (each entry whole, its step-up included; the first entry's refusal if none holds).
 */
export function holdsRefusal(
  rule: AccessRule,
  context: AuthContext,
  request: AuthRequest,
  now: () => number,
  implies: ScopeImplies = NO_IMPLIES,
): RuleRefusal | null {
  const own = heldRefusal(rule, context, request, implies);
  if (own !== null || rule.any.length === 0) return own;
  let first: RuleRefusal | null = null;
  for (const entry of rule.any) {
    const refusal = requirementRefusal(entry, context, request, now, implies);
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
  implies: ScopeImplies = NO_IMPLIES,
): RuleRefusal | null {
  return holdsRefusal(rule, context, request, now, implies) ?? stepUpRefusal(rule, context, now);
}

/** False only for a rule that asks for nothing but a step-up: it answers 401, never 403. */
export function mayForbid(rule: AccessRule): boolean {
  const stepUp = rule.acr !== undefined || rule.maxAge !== undefined;
  const names = rule.permissions.length + rule.scopes.length + rule.roles.length;
  return !stepUp || names > 0 || rule.claims !== undefined || rule.any.length > 0 || rule.tenantParam !== null;
}
