import { AUTH_FAILURE_DESCRIPTION, AuthError, type AuthFailure } from './auth-error.js';

/** The realm every challenge names. */
export const REALM = 'authlayer';

/**
 * The RFC 6750 `Bearer` challenge for a failure.
 *
 * @param description - the `error_description`, when the reason's fixed one names the wrong
 *   credential (see `AuthError`); ASCII without `"` or `\`. Default: the reason's.
 * @example
 * bearerChallenge('credentials_missing'); // 'Bearer realm="authlayer"'
 * bearerChallenge('token_expired');
 * // 'Bearer realm="authlayer", error="invalid_token", error_description="the token has expired"'
 */
export function bearerChallenge(reason: AuthFailure, description: string = AUTH_FAILURE_DESCRIPTION[reason]): string {
  // RFC 6750 §3.1: no error code when the request had no credentials.
  if (reason === 'credentials_missing') return `Bearer realm="${REALM}"`;
  return `Bearer realm="${REALM}", error="invalid_token", error_description="${description}"`;
}

/**
 * The refusal of a mode that takes Bearer tokens: the `AuthError` of `reason` with its RFC 6750
 * challenge ({@link bearerChallenge}). `description`: a fixed sentence in place of the reason's
 * (as `AuthError` takes it), in the message and the challenge alike.
 *
 * @example
 * throw bearerError('token_expired');
 */
export function bearerError(reason: AuthFailure, description: string = AUTH_FAILURE_DESCRIPTION[reason]): AuthError {
  return new AuthError(reason, bearerChallenge(reason, description), description);
}

/**
 * The RFC 9449 §7.1 `DPoP` challenge: `DPoP realm="authlayer", algs="ES256 RS256"`, and for a
 * refusal an error: `invalid_dpop_proof` when the proof itself was at fault (`proofAtFault`),
 * else `invalid_token`, with the reason's fixed description (or `description`, a fixed sentence in
 * its place). No error for `credentials_missing`.
 * `algorithms` must be JWS algorithm names (ASCII, no `"`).
 *
 * @example
 * dpopChallenge(['ES256'], 'dpop_invalid', true);
 * // 'DPoP realm="authlayer", algs="ES256", error="invalid_dpop_proof", error_description="the DPoP proof or the token binding is not valid"'
 */
export function dpopChallenge(
  algorithms: readonly string[],
  reason: AuthFailure,
  proofAtFault = false,
  description: string = AUTH_FAILURE_DESCRIPTION[reason],
): string {
  const base = `DPoP realm="${REALM}", algs="${algorithms.join(' ')}"`;
  if (reason === 'credentials_missing') return base;
  const error = proofAtFault ? 'invalid_dpop_proof' : 'invalid_token';
  return `${base}, error="${error}", error_description="${description}"`;
}

/**
 * The challenge of API key mode: `ApiKey realm="authlayer", header="X-API-Key"`, followed by
 * the Bearer challenge when the key is also accepted as a Bearer token.
 */
export function apiKeyChallenge(header: string, allowBearer: boolean, reason: AuthFailure): string {
  const apiKey = `ApiKey realm="${REALM}", header="${header}"`;
  return allowBearer ? `${apiKey}, ${bearerChallenge(reason)}` : apiKey;
}

/**
 * The RFC 6750 §3.1 challenge of a 403 for a request that carried a Bearer credential:
 * `Bearer realm="authlayer", error="insufficient_scope", error_description="..."`, and
 * `scope="a b"` when scopes are required. The description and scopes must be ASCII without
 * `"` or `\` (see `isRequirableName`).
 */
export function insufficientScopeChallenge(description: string, scopes: readonly string[] = []): string {
  const base = `Bearer realm="${REALM}", error="insufficient_scope", error_description="${description}"`;
  return scopes.length === 0 ? base : `${base}, scope="${scopes.join(' ')}"`;
}

/**
 * The RFC 9470 §3 step-up challenge of a 401 for a valid token whose authentication is too weak
 * (`acr`) or too old (`maxAge`, seconds since `auth_time`): `Bearer realm="authlayer",
 * error="insufficient_user_authentication", error_description="..."`, then `acr_values="a b"` when
 * `acr` lists values and `max_age=<n>` when `maxAge` is not null, so that a client asks its
 * authorization server for such an authentication. `acr` values must be ASCII without space, `"`
 * or `\` (see `isRequirableName`).
 *
 * @example
 * stepUpChallenge(['urn:mfa'], 300);
 * // 'Bearer realm="authlayer", error="insufficient_user_authentication", error_description="a stronger or more recent authentication is required", acr_values="urn:mfa", max_age=300'
 */
export function stepUpChallenge(acr: readonly string[], maxAge: number | null): string {
  const description = AUTH_FAILURE_DESCRIPTION.step_up_required;
  let challenge = `Bearer realm="${REALM}", error="insufficient_user_authentication", error_description="${description}"`;
  if (acr.length > 0) challenge += `, acr_values="${acr.join(' ')}"`;
  if (maxAge !== null) challenge += `, max_age=${maxAge}`;
  return challenge;
}

// A challenge starts where, outside a quoted string, a comma is followed by `scheme SP` and then
// not by `=` (that would be the next auth-param of the same challenge, RFC 9110 §11.6.1).
const NEXT_CHALLENGE = /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+ +[^\s=,]/;

/** Splits a `WWW-Authenticate` value into its challenges. */
export function splitChallenges(value: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i += 1) {
    const char = value[i];
    if (char === '\\' && quoted) i += 1;
    else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted && NEXT_CHALLENGE.test(value.slice(i + 1))) {
      parts.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(value.slice(start).trim());
  return parts.filter((part) => part !== '');
}

/**
 * Joins the challenges of several modes into one `WWW-Authenticate` value: every challenge of the
 * first, then those of the others whose scheme is not there yet (so the mode the credential went to
 * speaks for its scheme: an expired JWT's `Bearer ..., error="invalid_token"` is not followed by a
 * second, bare `Bearer realm`).
 *
 * @example
 * combineChallenges('Bearer realm="authlayer", error="invalid_token", error_description="the token has expired"',
 *   'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"');
 * // 'Bearer realm="authlayer", error="invalid_token", error_description="the token has expired", ApiKey realm="authlayer", header="X-API-Key"'
 */
export function combineChallenges(...values: readonly string[]): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const challenge of values.flatMap(splitChallenges)) {
    const scheme = (challenge.split(' ', 1)[0] as string).toLowerCase();
    if (seen.has(scheme)) continue;
    seen.add(scheme);
    kept.push(challenge);
  }
  return kept.join(', ');
}

/**
 * The challenge with RFC 9728's `resource_metadata="<url>"` added to each Bearer (and DPoP)
 * challenge in it, so a client learns where to find how to get a token for this resource.
 */
export function withResourceMetadata(challenge: string, metadataUrl: string): string {
  return splitChallenges(challenge)
    .map((part) =>
      /^(Bearer|DPoP)(\s|$)/i.test(part)
        ? `${part}${/\s/.test(part) ? ',' : ''} resource_metadata="${metadataUrl}"`
        : part,
    )
    .join(', ');
}
