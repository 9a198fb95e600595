import {
  ForbiddenError,
  insufficientScopeChallenge,
  isRequirableName,
  readBearerToken,
  type AccessRequirement,
  type AccessRule,
  type AuthContext,
  type AuthRequest,
  type ForbiddenReason,
} from '@authlayer/core';

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

/** A rule object as `requireAccess` takes it: a parsed config's, or by hand with lists left out. */
export interface AccessRuleInput {
  readonly permissions?: readonly string[];
  readonly scopes?: readonly string[];
  readonly roles?: readonly string[];
  readonly any?: readonly Partial<AccessRequirement>[];
  readonly modes?: null;
  readonly tenantParam?: null;
}

const RULE_FIELDS = new Set(['permissions', 'scopes', 'roles', 'any', 'modes', 'tenantParam']);

/**
 * A rule object for `requireAccess`, checked whole: a mistyped key is a TypeError at start-up,
 * never an open route. `fn` names the caller in the message.
 */
export function toRule(rule: unknown, fn = 'requireAccess(rule)'): AccessRule {
  const fail = (why: string): never => {
    throw new TypeError(`${fn}: ${why}`);
  };
  if (typeof rule !== 'object' || rule === null || Array.isArray(rule)) {
    return fail(`needs a rule object of the access table, not ${describeValue(rule)} (a mistyped key?)`);
  }
  const candidate = rule as Record<string, unknown>;
  const unknown = Object.keys(candidate).find((field) => !RULE_FIELDS.has(field));
  if (unknown !== undefined) fail(`unknown field ${unknown.slice(0, 40)}`);
  if ((candidate.modes ?? null) !== null || (candidate.tenantParam ?? null) !== null) {
    fail('modes and tenant_param need auth.access, which knows the route');
  }
  const requirement = toRequirement(candidate, fail);
  const any = candidate.any ?? [];
  if (!Array.isArray(any)) return fail('any must be a list');
  const entries = any.map((entry: unknown) =>
    typeof entry === 'object' && entry !== null
      ? toRequirement(entry as Record<string, unknown>, fail)
      : fail('an entry of any must be an object'),
  );
  const total = (r: AccessRequirement) => r.permissions.length + r.scopes.length + r.roles.length;
  if (total(requirement) === 0 && entries.length === 0) fail('the rule requires nothing');
  if (entries.some((entry) => total(entry) === 0)) fail('an entry of any requires nothing');
  return Object.freeze({ ...requirement, any: Object.freeze(entries), modes: null, tenantParam: null });
}

function toRequirement(candidate: Record<string, unknown>, fail: (why: string) => never): AccessRequirement {
  const list = (held: Held): readonly string[] => {
    const names = candidate[held] ?? [];
    if (!Array.isArray(names) || !names.every(isRequirableName)) {
      fail(`${held} must be a list of names of printable ASCII without space, " or \\`);
    }
    return Object.freeze([...new Set(names as string[])]);
  };
  return { permissions: list('permissions'), scopes: list('scopes'), roles: list('roles') };
}

function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  return typeof value === 'string'
    ? `the word "${value.slice(0, 20)}"`
    : `a ${Array.isArray(value) ? 'list' : typeof value}`;
}

const HELD: readonly Held[] = ['permissions', 'scopes', 'roles'];

/** The 403 of the first kind of name a requirement lacks, or null when the caller holds them all. */
export function requirementRefusal(requirement: AccessRequirement, context: AuthContext, request: AuthRequest) {
  for (const held of HELD) {
    const required = requirement[held];
    if (required.length === 0) continue;
    const missing = missingNames(context, held, required);
    if (missing.length > 0) return forbidden(held, missing, required, request);
  }
  return null;
}

/** A rule object's own names, then one of its `any` entries (the first entry's refusal if none holds). */
export function ruleRefusal(rule: AccessRule, context: AuthContext, request: AuthRequest): ForbiddenError | null {
  const own = requirementRefusal(rule, context, request);
  if (own !== null || rule.any.length === 0) return own;
  let first: ForbiddenError | null = null;
  for (const entry of rule.any) {
    const refusal = requirementRefusal(entry, context, request);
    if (refusal === null) return null;
    first ??= refusal;
  }
  return first;
}
