import {
  type AccessRule,
  ForbiddenError,
  bearerError,
  insufficientScopeChallenge,
  isRequirableName,
  readBearerToken,
  type AuthContext,
  type AuthError,
  type ForbiddenReason,
} from '@authlayer/core';
import type { Request, RequestHandler } from 'express';
import { sendRefusal } from './error-handler.js';

/** The lists of an AuthContext a guard can require names from. */
type Held = 'permissions' | 'scopes' | 'roles';

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
    const context: AuthContext | undefined = req.auth;
    if (context === undefined) return sendRefusal(res, NOT_AUTHENTICATED);
    const spared = anonymousBecause.get(req);
    if (spared !== undefined && context.method === 'none') return sendRefusal(res, spared);
    const missing = required.filter((name) => !context[held].includes(name));
    if (missing.length === 0) return next();
    sendRefusal(res, forbidden(held, missing, required, req));
  };
}

function forbidden(held: Held, missing: string[], required: readonly string[], req: Request): ForbiddenError {
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

const PASS: RequestHandler = (_req, _res, next) => next();

/**
 * The guard of one `access` entry of the config: the caller needs every permission, scope and
 * role it lists (checked in that order, the first kind missing answering 403). No entry
 * (`undefined`) = any authenticated caller, and the guard passes everything.
 *
 * @example
 * app.post('/invoke', auth, requireAccess(auth.config.access['POST /invoke']), handler);
 */
export function requireAccess(rule: AccessRule | undefined): RequestHandler {
  const guards: RequestHandler[] = [];
  if (rule !== undefined && rule.permissions.length > 0) guards.push(requirePermissions(...rule.permissions));
  if (rule !== undefined && rule.scopes.length > 0) guards.push(requireScopes(...rule.scopes));
  if (rule !== undefined && rule.roles.length > 0) guards.push(requireRoles(...rule.roles));
  return guards.reduceRight<RequestHandler>(
    (after, guard) => (req, res, next) => guard(req, res, () => after(req, res, next)),
    PASS,
  );
}
