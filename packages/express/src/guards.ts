import {
  bearerError,
  isRequirableName,
  type AccessValue,
  type AuthContext,
  type AuthError,
  type ForbiddenError,
} from '@authlayer/core';
import {
  forbidden,
  missingNames,
  ruleRefusal,
  toRule,
  type AccessRuleInput,
  type Held,
} from '@authlayer/engine/internal';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { sendRefusal } from './error-handler.js';
import { existingScopeOf, refuse } from './request.js';
import { refusalAnswer } from '@authlayer/engine/internal';

export type { AccessRuleInput } from '@authlayer/engine/internal';

const NOT_AUTHENTICATED = bearerError('credentials_missing');

/**
 * Makes a guard: the caller's `req.auth[held]` must contain every one of `names` (exact,
 * case-sensitive). Without `req.auth` (no `auth` before it), or anonymous through `auth.optional`
 * → 401; lacking a name → 403 `forbidden`. The checks are the engine's (the table's own).
 */
function createGuard(held: Held, fn: string, names: readonly unknown[]): RequestHandler {
  if (names.length === 0 || !names.every(isRequirableName)) {
    throw new TypeError(`${fn}(...names) needs at least one name of printable ASCII without space, " or \\`);
  }
  const required = Object.freeze([...new Set(names as string[])]);
  return (req, res, next) => {
    const context = callerOf(req, res, next);
    if (context === null) return;
    const missing = missingNames(context, held, required, existingScopeOf(req)?.implies);
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
  const spared = existingScopeOf(req)?.anonymousBecause ?? null;
  if (spared !== null && context.method === 'none') {
    if (reported(req, next, spared)) sendRefusal(res, spared);
    return null;
  }
  return context;
}

/**
 * The guard's refusal becomes the request's one decision (`auth` before it held its own until the
 * answer); false after handing a listener's error to `next` (a 500, as for `auth`'s decisions).
 */
function reported(req: Request, next: NextFunction, error: AuthError | ForbiddenError): boolean {
  try {
    existingScopeOf(req)?.refusedLater(error, routeOf(req));
    return true;
  } catch (listenerError) {
    next(listenerError);
    return false;
  }
}

/** The route a guard runs on, as registered (`GET /reports/:id`); never the request's own path. */
function routeOf(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.method} ${req.baseUrl}${path}` : req.method;
}

/**
 * A guard's refusal, reported, then answered as the engine's refusals are (an unread upload closes;
 * a step-up's 401 names the resource metadata as the decision's flow does).
 */
function refuseUnread(req: Request, res: Response, next: NextFunction, error: AuthError | ForbiddenError): void {
  if (reported(req, next, error)) refuse(refusalAnswer(error, existingScopeOf(req)?.resourceMetadata, req), req, res);
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
 * permission, scope and role it lists, its `claims`, and one entry of its `any` (checked in that
 * order, the first missing answering 403), then its step-up (`acr`, `maxAge`: 401
 * `step_up_required` with RFC 9470's challenge). `tenant_param` and `modes` need `auth.access`,
 * which knows the route's pattern and authenticates for it. Prefer `app.use(auth.access)`: it
 * applies the table.
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
    // The clock of the middleware that authenticated the request, for max_age.
    const scope = existingScopeOf(req);
    const refusal = ruleRefusal(checked, context, req, scope?.now, scope?.implies);
    if (refusal === null) return next();
    refuseUnread(req, res, next, refusal);
  };
}
