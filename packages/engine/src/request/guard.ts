import {
  bearerError,
  isRequirableName,
  type AccessValue,
  type AuthContext,
  type AuthError,
  type ForbiddenError,
} from '@authlayer/core';
import { toRule, type AccessRuleInput } from '../access/rule-input.js';
import { forbidden, missingNames, ruleRefusal, type Held, type RuleRefusal } from '../access/rules.js';
import { refusalAnswer, type Answer } from './answer.js';
import type { EngineRequest } from './decide.js';
import type { RequestScope } from './scope.js';

// A guard after the decision (`requireRoles`, `requireAccess`, ...): the judgement is the engine's,
// the same for every adapter; an adapter wraps it in its framework's handler and writes the answer.

/** What a guard checks of a known caller: its refusal, or null when the caller holds it all. */
export type GuardCheck = (
  context: AuthContext,
  request: EngineRequest,
  scope: RequestScope | undefined,
) => RuleRefusal | null;

/** A guard's refusal: the answer, written at once (`now`) or as the engine's refusals are (`refuseThrough`). */
export interface GuardRefusal {
  readonly answer: Answer;
  /**
   * True for the 401 of a request without a caller, or of an anonymous one: written at once. False
   * for a rule's refusal of a known caller: written as the decision's refusals are, a microtask later.
   */
  readonly now: boolean;
}

const NOT_AUTHENTICATED = bearerError('credentials_missing');

/** The 401 of a request that no authentication ran for (a handler wired without it before). */
export const NOT_AUTHENTICATED_ANSWER: Answer = Object.freeze(refusalAnswer(NOT_AUTHENTICATED));

const NO_CALLER: GuardRefusal = Object.freeze({ answer: NOT_AUTHENTICATED_ANSWER, now: true });

/**
 * Judges a guard for the caller `context`: without one (no authentication before the guard) →
 * 401, reported as the request's decision when an engine saw the request (`scope`); anonymous through `auth.optional` → the 401 it was spared; `check`'s refusal → its 403 or
 * step-up 401 (challenges naming the decision's resource metadata). A refusal becomes the
 * request's one decision through `scope` (the held `allowed` becomes it), under the route
 * `routeOf(a)` names as registered (`GET /reports/:id`). Null: the guard lets the request on.
 *
 * @throws what an `onDecision` listener threw (the adapter answers it with a 500)
 */
export function guardRefusal<A>(
  check: GuardCheck,
  context: AuthContext | undefined,
  request: EngineRequest,
  scope: RequestScope | undefined,
  routeOf: (a: A) => string,
  a: A,
): GuardRefusal | null {
  if (context === undefined) {
    unauthenticated(scope, routeOf, a);
    return NO_CALLER;
  }
  const spared = scope?.anonymousBecause ?? null;
  if (spared !== null && context.method === 'none') {
    reported(spared, scope, routeOf, a);
    return { answer: refusalAnswer(spared), now: true };
  }
  const refusal = check(context, request, scope);
  if (refusal === null) return null;
  reported(refusal, scope, routeOf, a);
  return { answer: refusalAnswer(refusal, scope?.resourceMetadata, request), now: false };
}

/**
 * The 401 of a handler that needs a caller and found none (no authentication ran before it: a
 * `public` route, a handler wired without `auth`): still the request's one decision, `refused`
 * `credentials_missing` under the route `routeOf(a)` names, reported through `scope` when an
 * engine saw the request (without a scope no engine did, and nobody can hear of it).
 *
 * @throws what an `onDecision` listener threw (the adapter answers it with a 500)
 */
export function unauthenticated<A>(scope: RequestScope | undefined, routeOf: (a: A) => string, a: A): Answer {
  if (scope !== undefined) scope.refusedUnauthenticated(NOT_AUTHENTICATED, routeOf(a));
  return NOT_AUTHENTICATED_ANSWER;
}

function reported<A>(
  error: AuthError | ForbiddenError,
  scope: RequestScope | undefined,
  routeOf: (a: A) => string,
  a: A,
): void {
  if (scope?.holding === true) scope.refusedLater(error, routeOf(a));
}

/**
 * The check of a guard that requires names: the caller's `context[held]` must contain every one
 * of `names` (exact, case-sensitive; a scope also through `scopes.implies`), else 403.
 *
 * @throws TypeError when no name is given, or a name is not printable ASCII without space, `"`, `\`
 */
export function namesCheck(held: Held, fn: string, names: readonly unknown[]): GuardCheck {
  if (names.length === 0 || !names.every(isRequirableName)) {
    throw new TypeError(`${fn}(...names) needs at least one name of printable ASCII without space, " or \\`);
  }
  const required = Object.freeze([...new Set(names as string[])]);
  return (context, request, scope) => {
    const missing = missingNames(context, held, required, scope?.implies);
    return missing.length === 0 ? null : forbidden(held, missing, required, request);
  };
}

/**
 * The check of one `access` rule object (missing lists taken as empty), judged with the clock and
 * `scopes.implies` of the decision before it.
 *
 * @throws TypeError at once for a word (`public`, ...), an unknown field, a rule that requires
 *   nothing, or `modes`/`tenant_param` (which need the table, which knows the route)
 */
export function ruleCheck(rule: AccessRuleInput | AccessValue | undefined): GuardCheck {
  const checked = toRule(rule);
  return (context, request, scope) => ruleRefusal(checked, context, request, scope?.now, scope?.implies);
}
