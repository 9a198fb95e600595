import { bearerError, type AccessValue, type AuthError, type ForbiddenError, type Logger } from '@authlayer/core';
import type { Context, MiddlewareHandler } from 'hono';
import { failed, responseOf } from './answer.js';
import { refusalAnswer, ruleRefusal, toRule, type AccessRuleInput } from './request.js';
import { routeName } from './routes.js';
import { scopedOf } from './scope.js';

const NOT_AUTHENTICATED = bearerError('credentials_missing');

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
  const checked = toRule(rule);
  return async function requireAccess(c, next) {
    const context = c.get('auth');
    if (context === undefined) return responseOf(refusalAnswer(NOT_AUTHENTICATED));
    const scoped = scopedOf(c);
    const scope = scoped?.scope;
    const spared = scope?.anonymousBecause ?? null;
    if (spared !== null && context.method === 'none') {
      return reported(logger, c, spared) ?? responseOf(refusalAnswer(spared));
    }
    const request = scoped?.request ?? { method: c.req.method, headers: {} };
    const refusal = ruleRefusal(checked, context, request, scope?.now, scope?.implies);
    if (refusal === null) return next();
    return reported(logger, c, refusal) ?? responseOf(refusalAnswer(refusal, scope?.resourceMetadata, request));
  };
}

/**
 * The guard's refusal becomes the request's one decision; the 500 when the `onDecision` listener
 * threw (as for the middleware's own decisions), else undefined.
 */
function reported(logger: () => Logger, c: Context, error: AuthError | ForbiddenError): Response | undefined {
  try {
    scopedOf(c)?.scope.refusedLater(error, routeName(c));
    return undefined;
  } catch (listenerError) {
    return failed(logger(), listenerError);
  }
}
