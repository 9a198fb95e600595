import type { AccessValue } from '@authlayer/core';
import {
  guardRefusal,
  namesCheck,
  refuseThrough,
  ruleCheck,
  type AccessRuleInput,
  type GuardCheck,
} from '@authlayer/engine/internal';
import type { Request, RequestHandler } from 'express';
import { PORT, sendAnswer } from './answer.js';
import { existingScopeOf } from './scope.js';

export type { AccessRuleInput } from '@authlayer/engine/internal';

/**
 * A guard of `check` (the engine's judgement, see `guardRefusal`): without `req.auth` (no `auth`
 * before it), or anonymous through `auth.optional` → 401; a refusal of `check` → its 403 or
 * step-up 401, reported as the request's one decision (a listener that throws: `next(error)`).
 */
function toGuard(check: GuardCheck): RequestHandler {
  return function authlayerGuard(req, res, next) {
    let refusal: ReturnType<typeof guardRefusal>;
    try {
      refusal = guardRefusal(check, req.auth, req, existingScopeOf(req), routeOf, req);
    } catch (listenerError) {
      return next(listenerError);
    }
    if (refusal === null) return next();
    if (refusal.now) return sendAnswer(res, refusal.answer);
    refuseThrough(PORT, req, res, next, refusal.answer);
  };
}

/** The route a guard runs on, as registered (`GET /reports/:id`); never the request's own path. */
export function routeOf(req: Request): string {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.method} ${req.baseUrl}${path}` : req.method;
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
  return toGuard(namesCheck('permissions', 'requirePermissions', names));
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
  return toGuard(namesCheck('scopes', 'requireScopes', names));
}

/**
 * A guard: the caller must hold every role listed (`req.auth.roles`). As {@link requirePermissions}.
 *
 * @throws TypeError as {@link requirePermissions}
 * @example
 * app.delete('/users/:id', auth, requireRoles('admin'), handler);
 */
export function requireRoles(...names: string[]): RequestHandler {
  return toGuard(namesCheck('roles', 'requireRoles', names));
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
  return toGuard(ruleCheck(rule));
}
