import { audienceRefusal, bearerError, type AuthFailure } from '@authlayer/core';
import { FetchFailure } from '@authlayer/core/internal';

/** What the answer's checks compare against. */
export interface AnswerExpectations {
  /** When set, the answer's `iss` must equal it. */
  readonly issuer: string | null;
  /** When set, the answer's `aud` (a string, or a list of which one entry) must equal it. */
  readonly audience: string | null;
  /** `resource.audience_strict`: every `aud` entry must name `audience`. */
  readonly audienceStrict?: boolean;
}

/**
 * Checks an introspection answer (RFC 7662 §2.2) and returns when it stops being usable, in
 * milliseconds (`exp`), or `null` when it carries no `exp`.
 *
 * - `active` must be exactly `true`; anything else → `credentials_invalid` (an inactive token
 *   says nothing about why: revoked, expired or never issued, RFC 7662 §2.2).
 * - `exp` at or before now → `token_expired`; `nbf` after now → `token_not_yet_valid`.
 * - `iss` and `aud` as configured → `issuer_mismatch`, `audience_mismatch` (`aud` compared as URIs).
 *
 * @throws AuthError as above; FetchFailure when `exp` or `nbf` is present but not a number
 *   (the provider's answer is garbled, not the token).
 */
export function checkAnswer(
  answer: Readonly<Record<string, unknown>>,
  expected: AnswerExpectations,
  nowMs: number,
): number | null {
  if (answer.active !== true) refuse('credentials_invalid');
  const exp = timeOf(answer.exp);
  const nbf = timeOf(answer.nbf);
  if (exp !== null && exp <= nowMs) refuse('token_expired');
  if (nbf !== null && nbf > nowMs) refuse('token_not_yet_valid');
  if (expected.issuer !== null && answer.iss !== expected.issuer) refuse('issuer_mismatch');
  if (expected.audience !== null) {
    const refusal = audienceRefusal(answer.aud, expected.audience, expected.audienceStrict);
    if (refusal !== null) throw refusal;
  }
  return exp;
}

function refuse(reason: AuthFailure): never {
  throw bearerError(reason);
}

/** Seconds since the epoch (RFC 7662 §2.2) in milliseconds; `null` when absent. */
function timeOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new FetchFailure('a garbled answer');
  return value * 1000;
}
