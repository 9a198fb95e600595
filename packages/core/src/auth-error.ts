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
  | 'token_revoked'
  | 'dpop_invalid'
  | 'certificate_mismatch'
  | 'step_up_required';

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
  dpop_invalid: 'the DPoP proof or the token binding is not valid',
  certificate_mismatch: 'the token is not bound to the client certificate',
  step_up_required: 'a stronger or more recent authentication is required',
});

/**
 * Whose problem a refusal is: `client` (the credentials presented were refused: a guess),
 * `absent` (no credentials were sent, or not from the authentication a rule asks for),
 * `provider` (the service could not check them: its key set or introspection endpoint failed, an
 * operator's problem). One entry per reason, so a new reason must say which it is.
 */
export const AUTH_FAILURE_CAUSE: Readonly<Record<AuthFailure, 'client' | 'absent' | 'provider'>> = Object.freeze({
  credentials_missing: 'absent',
  credentials_invalid: 'client',
  credentials_expired: 'client',
  token_malformed: 'client',
  token_expired: 'client',
  token_not_yet_valid: 'client',
  issuer_mismatch: 'client',
  audience_mismatch: 'client',
  algorithm_not_allowed: 'client',
  signature_invalid: 'client',
  key_unavailable: 'provider',
  claim_invalid: 'client',
  token_type_mismatch: 'client',
  token_revoked: 'client',
  dpop_invalid: 'client',
  certificate_mismatch: 'client',
  // RFC 9470: a valid token whose authentication is too weak or too old for the route; the
  // authentication the route needs was not presented, and a valid token is never a guess.
  step_up_required: 'absent',
});

/**
 * True when a refusal for `reason` is a failed guess: the client's own credentials were refused.
 * A failed-authentication limit counts these and nothing else, so a provider outage never locks
 * clients out. A reason this copy of core does not know (another version's) counts: fail closed.
 *
 * @example
 * isFailedGuess('signature_invalid'); // true
 * isFailedGuess('key_unavailable');   // false: the provider failed, not the client
 */
export function isFailedGuess(reason: string): boolean {
  const cause = Object.hasOwn(AUTH_FAILURE_CAUSE, reason) ? AUTH_FAILURE_CAUSE[reason as AuthFailure] : 'client';
  return cause === 'client';
}

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
   * @param description - the message, when the reason's fixed one names the wrong credential
   *   (`the key has been revoked` for an API key client); a fixed sentence under the same rules as
   *   {@link AUTH_FAILURE_DESCRIPTION}'s. Default: the reason's.
   */
  constructor(
    readonly reason: AuthFailure,
    readonly challenge: string,
    description: string = AUTH_FAILURE_DESCRIPTION[reason],
  ) {
    super(description);
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
