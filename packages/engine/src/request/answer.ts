import { isAuthError, type AuthError, type ForbiddenError } from '@authlayer/core';
import { withResourceMetadata } from '@authlayer/core/internal';

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
 * `resourceMetadata` (RFC 9728), a 401's Bearer and DPoP challenges name it (`resource_metadata`).
 */
export function refusalAnswer(error: AuthError | ForbiddenError, resourceMetadata?: string): Answer {
  const challenge =
    resourceMetadata !== undefined && isAuthError(error)
      ? withResourceMetadata(error.challenge, resourceMetadata)
      : error.challenge;
  return {
    status: error.status,
    headers: challenge === null ? [] : [['WWW-Authenticate', challenge]],
    code: error.code,
    message: error.message,
  };
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
