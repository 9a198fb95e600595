import {
  ForbiddenError,
  bearerError,
  insufficientScopeChallenge,
  isRequirableName,
  readBearerToken,
  type AccessRequirement,
  type AccessRule,
  type AccessValue,
  type AuthContext,
  type AuthError,
  type ForbiddenReason,
} from '@authlayer/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendRefusal } from './error-handler.js';
import { guardRefused } from './reported-decision.js';

/** The lists of an AuthContext a guard can require names from. */
export type Held = 'permissions' | 'scopes' | 'roles';

const REASON: Readonly<Record<Held, ForbiddenReason>> = {
  permissions: 'permission_missing',
  scopes: 'scope_missing',
  roles: 'role_missing',
};

// `auth.optional` remembers here why a request became anonymous, so that a guard after it asks
// for credentials (401 with the mode's own challenge) instead of refusing them (403).
const anonymousBecause = new WeakMap<Request, AuthError>();

/** Marks `req` as let through anonymously by `auth.optional`; `missing` is the 401 it was spared. */
export function markAnonymous(req: Request, missing: AuthError): void {
  anonymousBecause.set(req, missing);
}

const NOT_AUTHENTICATED = bearerError('credentials_missing');

/**
 * Makes a guard: the caller's `req.auth[held]` must contain every one of `names` (exact,
 * case-sensitive). Without `req.auth` (no `auth` before it), or anonymous through `auth.optional`
 * → 401; lacking a name → 403 `forbidden`.
 */
function createGuard(held: Held, fn: string, names: readonly unknown[]): RequestHandler {
  if (names.length === 0 || !names.every(isRequirableName)) {
    throw new TypeError(`${fn}(...names) needs at least one name of printable ASCII without space, " or \\`);
  }
  const required = Object.freeze([...new Set(names as string[])]);
  return (req, res, next) => {
    const context = callerOf(req, res, next);
    if (context === null) return;
    const missing = missingNames(context, held, required);
    if (missing.length === 0) return next();
    refuseUnread(req, res, next, forbidden(held, missing, required, req));
  };
}

/**
 * The authenticated caller, or null after answering 401: no `req.auth` (no `auth` before the
 * guard), or anonymous through `auth.optional` (the mode's own challenge asks for credentials).
 */
function callerOf(req: Request, res: Response, next: NextFunction): AuthContext | null {
  const context: AuthContext | undefined = req.auth;
  if (context === undefined) {
    sendRefusal(res, NOT_AUTHENTICATED);
    return null;
  }
  const spared = anonymousBecause.get(req);
  if (spared !== undefined && context.method === 'none') {
    if (reported(req, res, next, spared)) sendRefusal(res, spared);
    return null;
  }
  return context;
}

/**
 * The guard's refusal becomes the request's one decision (`auth` before it held its own until the
 * answer); false after handing a listener's error to `next` (a 500, as for `auth`'s decisions).
 */
function reported(req: Request, res: Response, next: NextFunction, error: AuthError | ForbiddenError): boolean {
  try {
    guardRefused(req, res, error);
    return true;
  } catch (listenerError) {
    next(listenerError);
    return false;
  }
}

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

/**
 * A guard's refusal; an upload still to come closes the connection rather than being read. One
 * microtask later, as the 401 path: only then does Node's parser say whether the body is complete.
 */
function refuseUnread(req: Request, res: Response, next: NextFunction, error: AuthError | ForbiddenError): void {
  if (!reported(req, res, next, error)) return;
  queueMicrotask(() => {
    if (!res.req.complete) res.setHeader('Connection', 'close');
    sendRefusal(res, error);
  });
}

/** The 403 of a missing name, with RFC 6750 `insufficient_scope` when a Bearer credential came. */
export function forbidden(held: Held, missing: string[], required: readonly string[], req: Request): ForbiddenError {
  const reason = REASON[held];
  const withChallenge = readBearerToken(req).kind === 'token';
  const error = new ForbiddenError(reason, null, missing);
  if (!withChallenge) return error;
  // RFC 6750 §3.1: insufficient_scope, and `scope` lists the scopes the resource needs.
  const challenge = insufficientScopeChallenge(error.message, held === 'scopes' ? required : []);
  return new ForbiddenError(reason, challenge, missing);
}

/**
 * A guard: the caller must hold every permission listed (`req.auth.permissions`, which includes
 * those the top-level `roles` section gives the caller's roles). Put it after `auth`.
 * Lacking one → 403 `{"error":"forbidden"}` naming the missing permissions, with the RFC 6750
 * `insufficient_scope` challenge when the request carried a Bearer credential. No `req.auth`
 * (no `auth` before it) → 401. The no-auth fallback holds no permission, so it stays closed.
 *
 * @throws TypeError when no name is given, or a name is not printable ASCII without space, `"`, `\`
 * @example
 * app.post('/invoke', auth, requirePermissions('invoke'), express.json(), handler);
 */
export function requirePermissions(...names: string[]): RequestHandler {
  return createGuard('permissions', 'requirePermissions', names);
}

/**
 * A guard: the caller must hold every scope listed (`req.auth.scopes`). As
 * {@link requirePermissions}, and the 403's challenge carries `scope="<the required scopes>"`.
 *
 * @throws TypeError as {@link requirePermissions}
 * @example
 * app.get('/reports', auth, requireScopes('reports:read'), handler);
 */
export function requireScopes(...names: string[]): RequestHandler {
  return createGuard('scopes', 'requireScopes', names);
}

/**
 * A guard: the caller must hold every role listed (`req.auth.roles`). As {@link requirePermissions}.
 *
 * @throws TypeError as {@link requirePermissions}
 * @example
 * app.delete('/users/:id', auth, requireRoles('admin'), handler);
 */
export function requireRoles(...names: string[]): RequestHandler {
  return createGuard('roles', 'requireRoles', names);
}

/**
 * The guard of one `access` rule object (`auth.config.access['POST /invoke']`, or the same shape by
 * hand, missing lists taken as empty), for routes wired one by one: the caller needs every
 * permission, scope and role it lists, and one entry of its `any` (checked in that order, the
 * first kind missing answering 403). `tenant_param` and `modes` need `auth.access`, which knows the
 * route's pattern and authenticates for it. Prefer `app.use(auth.access)`: it applies the table.
 *
 * @throws TypeError at once for `undefined`, `null`, a word (`public`, ...), an unknown field, a
 *   rule that requires nothing, or `modes`/`tenant_param`: a mistyped key is a crash at start-up,
 *   never an open route
 * @example
 * app.post('/invoke', auth, requireAccess(auth.config.access['POST /invoke']), handler);
 */
export function requireAccess(rule: AccessRuleInput | AccessValue | undefined): RequestHandler {
  const checked = toRule(rule);
  return (req, res, next) => {
    const context = callerOf(req, res, next);
    if (context === null) return;
    const refusal = ruleRefusal(checked, context, req);
    if (refusal === null) return next();
    refuseUnread(req, res, next, refusal);
  };
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

function toRule(rule: unknown): AccessRule {
  const fail = (why: string): never => {
    throw new TypeError(`requireAccess(rule): ${why}`);
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
export function requirementRefusal(requirement: AccessRequirement, context: AuthContext, req: Request) {
  for (const held of HELD) {
    const required = requirement[held];
    if (required.length === 0) continue;
    const missing = missingNames(context, held, required);
    if (missing.length > 0) return forbidden(held, missing, required, req);
  }
  return null;
}

/** A rule object's own names, then one of its `any` entries (the first entry's refusal if none holds). */
export function ruleRefusal(rule: AccessRule, context: AuthContext, req: Request): ForbiddenError | null {
  const own = requirementRefusal(rule, context, req);
  if (own !== null || rule.any.length === 0) return own;
  let first: ForbiddenError | null = null;
  for (const entry of rule.any) {
    const refusal = requirementRefusal(entry, context, req);
    if (refusal === null) return null;
    first ??= refusal;
  }
  return first;
}
