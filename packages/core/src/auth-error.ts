/** Why a request was refused. Wire strings, so snake_case. */
export type AuthFailure =
  | 'credentials_missing'
  | 'credentials_invalid'
  | 'credentials_expired'
  | 'token_malformed'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'issuer_mismatch'
  | 'audience_mismatch'
  | 'algorithm_not_allowed'
  | 'signature_invalid'
  | 'key_unavailable'
  | 'claim_invalid'
  | 'token_type_mismatch'
  | 'token_revoked';

/**
 * One fixed sentence per reason. It never holds a token, a key, a claim value or a library's
 * own message, so it is safe in a response body, a header and a log line.
 * ASCII only, and no `"` or `\`, so it can stand inside an RFC 6750 quoted string.
 */
export const AUTH_FAILURE_DESCRIPTION: Readonly<Record<AuthFailure, string>> = Object.freeze({
  credentials_missing: 'no credentials were sent',
  credentials_invalid: 'the credentials are not valid',
  credentials_expired: 'the credentials have expired',
  token_malformed: 'the token is malformed',
  token_expired: 'the token has expired',
  token_not_yet_valid: 'the token is not valid yet',
  issuer_mismatch: 'the token issuer is not accepted',
  audience_mismatch: 'the token audience is not accepted',
  algorithm_not_allowed: 'the token algorithm is not allowed',
  signature_invalid: 'the token signature is invalid',
  key_unavailable: 'no key is available to verify the token',
  claim_invalid: 'a required claim is missing',
  token_type_mismatch: 'the token type is not accepted',
  token_revoked: 'the token has been revoked',
});

/**
 * A refused request: HTTP 401 with the body `{"error":"unauthorized","message":...}` and the
 * `WWW-Authenticate` header in {@link AuthError.challenge}. Handlers reject with this and
 * nothing else; `@authlayer/express` renders it.
 *
 * @example
 * throw new AuthError('token_expired', bearerChallenge('token_expired'));
 */
export class AuthError extends Error {
  override readonly name = 'AuthError';
  /** Becomes the body's `error`. */
  readonly code = 'unauthorized';
  readonly status = 401;

  /**
   * @param reason - why the request was refused
   * @param challenge - the full `WWW-Authenticate` value (see `bearerChallenge`, `apiKeyChallenge`)
   */
  constructor(
    readonly reason: AuthFailure,
    readonly challenge: string,
  ) {
    super(AUTH_FAILURE_DESCRIPTION[reason]);
  }
}

/**
 * True for an {@link AuthError}, also one made by another copy of this package
 * (two versions of core may be installed side by side, so `instanceof` is not enough).
 */
export function isAuthError(error: unknown): error is AuthError {
  return (
    error instanceof Error &&
    error.name === 'AuthError' &&
    typeof (error as Partial<AuthError>).reason === 'string' &&
    typeof (error as Partial<AuthError>).challenge === 'string' &&
    typeof (error as Partial<AuthError>).status === 'number'
  );
}
