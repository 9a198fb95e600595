import { bearerError, isAuthError, type AuthError, type AuthFailure } from '@authlayer/core';

/** jose's `err.code` (`ERR_JWT_EXPIRED`, ...), or `''` for anything that has none. */
export function joseErrorCode(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : '';
}

/**
 * Turns whatever verifying a token threw into an {@link AuthError}; an `AuthError` passes
 * through unchanged. The one place that knows jose's error codes (STYLE.md §3). The resulting
 * message is core's fixed sentence: never the token, a key, a claim value or jose's own text.
 * An unknown code, or an error that is not jose's, becomes `token_malformed`.
 */
export function translateJoseError(error: unknown): AuthError {
  if (isAuthError(error)) return error;
  return bearerError(failureOf(error));
}

function failureOf(error: unknown): AuthFailure {
  switch (joseErrorCode(error)) {
    case 'ERR_JWT_EXPIRED':
      return 'token_expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return claimFailure(error as { claim?: unknown; reason?: unknown });
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'algorithm_not_allowed';
    // ERR_JWKS_*_MATCHING_KEY: the token names a key the issuer does not publish (another issuer's
    // token, a forged kid): retrying cannot help, so this is not key_unavailable, which means "the
    // key set cannot be read".
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'signature_invalid';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return 'key_unavailable';
    default:
      // ERR_JWS_INVALID, ERR_JWT_INVALID, ERR_JOSE_NOT_SUPPORTED (an unknown `crit`), TypeError, ...
      return 'token_malformed';
  }
}

/** jose's `JWTClaimValidationFailed` names the claim and why: `missing`, `invalid` or `check_failed`. */
function claimFailure({ claim, reason }: { claim?: unknown; reason?: unknown }): AuthFailure {
  // A claim of the wrong type (`"exp": "tomorrow"`) or a missing `exp` is a malformed token.
  if (reason === 'invalid') return 'token_malformed';
  switch (claim) {
    case 'nbf':
    case 'iat':
      return 'token_not_yet_valid';
    case 'iss':
      return 'issuer_mismatch';
    case 'aud':
      return 'audience_mismatch';
    default:
      return 'token_malformed';
  }
}
