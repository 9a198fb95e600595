import { isAuthError, type AuthError, type AuthRequest, type ForbiddenError } from '@authlayer/core';
import { splitChallenges, withResourceMetadata } from '@authlayer/core/internal';
import { sentWithDpop } from '../access/rules.js';

/**
 * A refusal as the engine answers it, for an adapter to write as it is: the status, the headers in
 * the order they are set, and the contract's JSON body `{"error": code, "message": message}`.
 */
export interface Answer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly code: 'unauthorized' | 'forbidden' | 'rate_limited' | 'internal' | 'invalid_request' | 'payload_too_large';
  readonly message: string;
  /** A JSON body to write in place of `{"error", "message"}` (MCP's JSON-RPC parse error). */
  readonly body?: Readonly<Record<string, unknown>>;
}

/**
 * A 401 (AuthError) or 403 (ForbiddenError), and its challenge as `WWW-Authenticate`. With
 * `resourceMetadata` (RFC 9728), every Bearer and DPoP challenge names it (`resource_metadata`),
 * a 403's `insufficient_scope` too. With the `request`, a challenge to a caller whose token came
 * as `DPoP` (a step-up, `insufficient_scope`) uses the `DPoP` scheme: that is how it retries.
 */
export function refusalAnswer(
  error: AuthError | ForbiddenError,
  resourceMetadata?: string,
  request?: AuthRequest,
): Answer {
  let challenge = error.challenge;
  if (challenge !== null && request !== undefined && asksTheCaller(error) && sentWithDpop(request)) {
    challenge = asDpop(challenge);
  }
  if (challenge !== null && resourceMetadata !== undefined)
    challenge = withResourceMetadata(challenge, resourceMetadata);
  return {
    status: error.status,
    headers: challenge === null ? [] : [['WWW-Authenticate', challenge]],
    code: error.code,
    message: error.message,
  };
}

/** A refusal of a known caller for what its token lacks (a scope, a recent authentication). */
function asksTheCaller(error: AuthError | ForbiddenError): boolean {
  return isAuthError(error) ? error.reason === 'step_up_required' : error.challenge !== null;
}

/** The challenge with each `Bearer` challenge in it given the `DPoP` scheme (RFC 9449 §7.1). */
function asDpop(challenge: string): string {
  return splitChallenges(challenge)
    .map((part) => part.replace(/^Bearer(?=\s|$)/i, 'DPoP'))
    .join(', ');
}

/** 429 `rate_limited` with `Retry-After` in whole seconds (at least 1). */
export function tooManyAnswer(waitMs: number): Answer {
  return {
    status: 429,
    headers: [['Retry-After', String(Math.max(1, Math.ceil(waitMs / 1000)))]],
    code: 'rate_limited',
    message: 'too many requests; retry after the number of seconds in Retry-After',
  };
}

/** A handler failed with something else than an AuthError: a bug, answered closed. */
export const INTERNAL_ANSWER: Answer = Object.freeze({
  status: 500,
  headers: [],
  code: 'internal',
  message: 'internal error',
});

/**
 * The body of an answer as every adapter writes it: the answer's own `body`, else the contract's
 * `{"error": code, "message": message}`, as JSON.
 */
export function answerJson(answer: Answer): string {
  return JSON.stringify(answer.body ?? { error: answer.code, message: answer.message });
}
