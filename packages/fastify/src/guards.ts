import { bearerError, type AccessValue, type AuthError, type ForbiddenError, type Logger } from '@authlayer/core';
import {
  refusalAnswer,
  ruleRefusal,
  toRule,
  type AccessRuleInput,
  type EngineRequest,
} from '@authlayer/engine/internal';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { failed, refuse, send } from './answer.js';
import { scopeOf } from './scope.js';

export type { AccessRuleInput } from '@authlayer/engine/internal';

const NOT_AUTHENTICATED = bearerError('credentials_missing');

/**
 * The `preHandler` of one `access` rule object (`app.authlayer.config.access['POST /invoke']`, or
 * the same shape by hand, missing lists taken as empty): the caller needs every permission, scope
 * and role it lists, its `claims`, one entry of its `any`, then its step-up (`acr`, `maxAge`).
 * Without `request.auth` (a public route), or anonymous through an `optional` route → 401; lacking
 * a name or a claim → 403; a step-up → 401 `step_up_required`, as Express's `requireAccess`.
 * Its refusal is the request's one decision (the held `allowed` becomes it).
 *
 * @throws TypeError at once for a word (`public`, ...), an unknown field, a rule that requires
 *   nothing, or `modes`/`tenant_param` (which need the table, which knows the route)
 */
export function requireAccessWith(
  logger: () => Logger,
  rule: AccessRuleInput | AccessValue | undefined,
): preHandlerHookHandler {
  const checked = toRule(rule);
  return function requireAccessHandler(request, reply, done) {
    const context = request.auth;
    if (context === undefined) return send(refusalAnswer(NOT_AUTHENTICATED), reply);
    const spared = scopeOf(request)?.anonymousBecause ?? null;
    if (spared !== null && context.method === 'none') {
      if (reported(logger, request, reply, spared)) send(refusalAnswer(spared), reply);
      return;
    }
    // The clock and RFC 9728 metadata of the hook that authenticated the request.
    const scope = scopeOf(request);
    const refusal = ruleRefusal(checked, context, request.raw as EngineRequest, scope?.now, scope?.implies);
    if (refusal === null) return done();
    if (reported(logger, request, reply, refusal))
      refuse(refusalAnswer(refusal, scope?.resourceMetadata, request.raw), request, reply);
  };
}

/**
 * The guard's refusal becomes the request's one decision; false after answering 500 because the
 * `onDecision` listener threw (as for the hook's own decisions).
 */
function reported(
  logger: () => Logger,
  request: FastifyRequest,
  reply: FastifyReply,
  error: AuthError | ForbiddenError,
): boolean {
  try {
    scopeOf(request)?.refusedLater(error, routeOf(request));
    return true;
  } catch (listenerError) {
    failed(logger(), listenerError, reply);
    return false;
  }
}

/** The route a guard runs on, as registered (`GET /reports/:id`); never the request's own path. */
function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === undefined ? request.method : `${request.method} ${url}`;
}
