import type { AccessValue, Logger } from '@authlayer/core';
import type { Context, MiddlewareHandler } from 'hono';
import { failed, responseOf } from './answer.js';
import { engineRequestOf, guardRefusal, ruleCheck, type AccessRuleInput, type Generation } from './request.js';
import { routeName } from './routes.js';
import { newScope, scopedOf, type Scoped } from './scope.js';

/**
 * The middleware of one `access` rule object (`{ roles: ['admin'] }`, missing lists taken as
 * empty): the caller needs every permission, scope and role it lists, its `claims`, one entry of
 * its `any`, then its step-up (`acr`, `maxAge`). Without `c.get('auth')` (a public route), or
 * anonymous through an `optional` route → 401; lacking a name or a claim → 403; a step-up → 401
 * `step_up_required`, as Express's and Fastify's `requireAccess`. Its refusal is the request's one
 * decision, the 401 of a request the middleware never saw included (reported through `current`).
 *
 * @throws TypeError at once for a word (`public`, ...), an unknown field, a rule that requires
 *   nothing, or `modes`/`tenant_param` (which need the table, which knows the route)
 */
export function requireAccessWith(
  current: () => Generation,
  logger: () => Logger,
  rule: AccessRuleInput | AccessValue | undefined,
): MiddlewareHandler {
  const check = ruleCheck(rule);
  return async function requireAccess(c, next) {
    const { scope, request } = scopedOf(c) ?? unseen(c, current());
    let refusal;
    try {
      refusal = guardRefusal(check, c.get('auth'), request, scope, routeName, c);
    } catch (listenerError) {
      // The refusal is the request's one decision: a listener that throws is a 500, as elsewhere.
      return failed(logger(), listenerError);
    }
    return refusal === null ? next() : responseOf(refusal.answer);
  };
}

/**
 * The scope of a request the authlayer middleware never saw (the guard on a route outside
 * `app.use(auth)`): nothing decided it, so the guard's 401 is reported to the serving generation's
 * `auth`, as on a `public` route.
 */
function unseen(c: Context, generation: Generation): Scoped {
  const request = engineRequestOf(c.req.raw);
  const scope = newScope(c, request);
  scope.reportTo = generation.auth;
  return { scope, request };
}
