import type { JwtProviderConfig } from '../config/jwt-section.js';
import { bearerError } from '@authlayer/core';
import { readClaim } from '@authlayer/core/internal';
import { decodeSegment, parseJsonObject } from './decode-jws.js';

/** A check of a verified token (its compact form and its claims) that throws `AuthError`. */
export type TokenCheck = (token: string, claims: Readonly<Record<string, unknown>>) => void;

/**
 * The checks of `token_type` and `required_claims`, run after the signature and the standard
 * claims were verified (so the fast path and jose stay exactly alike), or `null` when neither is
 * configured.
 *
 * - `token_type`: the protected header's `typ` must name the same media type (RFC 7515
 *   §4.1.9: compared without case, with or without its `application/` prefix, so `at+jwt`
 *   matches `application/at+jwt` as RFC 9068 §4 asks); a token without `typ` fails. Else 401
 *   `token_type_mismatch`.
 * - `required_claims`: each claim (name or dot path, read as the claims mapping reads it) must
 *   be present and not `null`. Else 401 `claim_invalid`.
 */
export function createTokenCheck(jwt: Pick<JwtProviderConfig, 'tokenType' | 'requiredClaims'>): TokenCheck | null {
  const required = jwt.requiredClaims;
  const wanted = jwt.tokenType === null ? null : mediaType(jwt.tokenType);
  if (wanted === null && required.length === 0) return null;
  return (token, claims) => {
    if (wanted !== null && typeOf(token) !== wanted) throw bearerError('token_type_mismatch');
    for (const path of required) {
      const value = readClaim(claims, path);
      if (value === undefined || value === null) throw bearerError('claim_invalid');
    }
  };
}

/** RFC 7515 §4.1.9: `typ` values are compared without case, `application/` may be left out. */
function mediaType(value: string): string {
  const lower = value.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** The normalised `typ` of a token whose header was already decoded once (it is valid JSON). */
function typeOf(token: string): string | null {
  const { typ } = parseJsonObject(decodeSegment(token.slice(0, token.indexOf('.'))));
  return typeof typ === 'string' ? mediaType(typ) : null;
}
