import type { AccessValue, Logger } from '@authlayer/core';
import type { MiddlewareHandler } from 'hono';
import { failed, responseOf } from './answer.js';
import { guardRefusal, ruleCheck, type AccessRuleInput } from './request.js';
import { routeName } from './routes.js';
import { scopedOf } from './scope.js';

/**
 * The middleware of one `access` rule object (`{ roles: ['admin'] }`, missing lists taken as
 * empty): the caller needs every permission, scope and role it lists, its `claims`, one entry of
 * its `any`, then its step-up (`acr`, `maxAge`). Without `c.get('auth')` (a public route), or
 * anonymous through an `optional` route → 401; lacking a name or a claim → 403; a step-up → 401
 * `step_up_required`, as Express's and Fastify's `requireAccess`. Its refusal is the request's one
 * decision.
 *
 * @throws TypeError at once for a word (`public`, ...), an unknown field, a rule that requires
 *   nothing, or `modes`/`tenant_param` (which need the table, which knows the route)
 */
export function requireAccessWith(
  logger: () => Logger,
  rule: AccessRuleInput | AccessValue | undefined,
): MiddlewareHandler {
  const check = ruleCheck(rule);
  return async function requireAccess(c, next) {
    const scoped = scopedOf(c);
    const request = scoped?.request ?? { method: c.req.method, headers: {} };
    let refusal;
    try {
      refusal = guardRefusal(check, c.get('auth'), request, scoped?.scope, routeName, c);
    } catch (listenerError) {
      // The refusal is the request's one decision: a listener that throws is a 500, as elsewhere.
      return failed(logger(), listenerError);
    }
    return refusal === null ? next() : responseOf(refusal.answer);
  };
}
