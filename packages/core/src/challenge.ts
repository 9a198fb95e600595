import { AUTH_FAILURE_DESCRIPTION, type AuthFailure } from './auth-error.js';

/** The realm every challenge names. */
export const REALM = 'authlayer';

/**
 * The RFC 6750 `Bearer` challenge for a failure.
 *
 * @example
 * bearerChallenge('credentials_missing'); // 'Bearer realm="authlayer"'
 * bearerChallenge('token_expired');
 * // 'Bearer realm="authlayer", error="invalid_token", error_description="the token has expired"'
 */
export function bearerChallenge(reason: AuthFailure): string {
  // RFC 6750 §3.1: no error code when the request had no credentials.
  if (reason === 'credentials_missing') return `Bearer realm="${REALM}"`;
  return `Bearer realm="${REALM}", error="invalid_token", error_description="${AUTH_FAILURE_DESCRIPTION[reason]}"`;
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
