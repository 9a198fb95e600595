import type { AccessValue } from '@authlayer/core';
import {
  guardRefusal,
  refuseThrough,
  ruleCheck,
  type AccessRuleInput,
  type EngineRequest,
} from '@authlayer/engine/internal';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import { send, type FastifyPort } from './answer.js';
import { scopeOf } from './scope.js';

export type { AccessRuleInput } from '@authlayer/engine/internal';

/**
 * The `preHandler` of one `access` rule object (`app.authlayer.config.access['POST /invoke']`, or
 * the same shape by hand, missing lists taken as empty): the caller needs every permission, scope
 * and role it lists, its `claims`, one entry of its `any`, then its step-up (`acr`, `maxAge`).
 * Without `request.auth` (a public route), or anonymous through an `optional` route → 401; lacking
 * a name or a claim → 403; a step-up → 401 `step_up_required`, as Express's `requireAccess`.
 * Its refusal is the request's one decision (the held `allowed` becomes it; see `guardRefusal`).
 *
 * @throws TypeError at once for a word (`public`, ...), an unknown field, a rule that requires
 *   nothing, or `modes`/`tenant_param` (which need the table, which knows the route)
 */
export function requireAccessWith(
  port: FastifyPort,
  rule: AccessRuleInput | AccessValue | undefined,
): preHandlerHookHandler {
  const check = ruleCheck(rule);
  return function requireAccessHandler(request, reply, done) {
    let refusal: ReturnType<typeof guardRefusal>;
    try {
      refusal = guardRefusal(check, request.auth, request.raw as EngineRequest, scopeOf(request), routeOf, request);
    } catch (listenerError) {
      // The onDecision listener threw: the 500, as for the hook's own decisions.
      return port.fail(request, reply, done, listenerError);
    }
    if (refusal === null) return done();
    if (refusal.now) return send(refusal.answer, reply);
    refuseThrough(port, request, reply, done, refusal.answer);
  };
}

/** The route a guard runs on, as registered (`GET /reports/:id`); never the request's own path. */
function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === undefined ? request.method : `${request.method} ${url}`;
}
