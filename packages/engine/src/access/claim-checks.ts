import {
  AuthError,
  ForbiddenError,
  stepUpChallenge,
  verifiedClaims,
  type AccessRequirement,
  type AuthContext,
  type ClaimValue,
} from '@authlayer/core';
import { clockLeewayOf, readClaim } from '@authlayer/core/internal';

// The checks of a rule that read the verified claims (the JWT payload, the introspection answer):
// `claims`, and RFC 9470's step-up (`acr`, `max_age`). A context without claims (an API key, an
// anonymous caller) holds none of them.

/**
 * 403 `claim_mismatch` for the first claim of `requirement.claims` whose verified value is not
 * accepted: equal to one of the values or, when the claim is a list, containing one (exact, type
 * included). The message names the claim's path, never a value.
 */
export function claimRefusal(requirement: AccessRequirement, context: AuthContext): ForbiddenError | null {
  const wanted = requirement.claims;
  if (wanted === undefined) return null;
  const claims = verifiedClaims(context);
  for (const [path, accepted] of Object.entries(wanted)) {
    const value = claims === null ? undefined : readClaim(claims, path);
    // No insufficient_scope challenge: no scope a client could ask for would change a claim.
    if (!isAccepted(value, accepted)) return new ForbiddenError('claim_mismatch', null, [path]);
  }
  return null;
}

/** A list's entries are compared one level deep: a list inside it is no value. */
function isAccepted(value: unknown, accepted: readonly ClaimValue[]): boolean {
  return Array.isArray(value) ? value.some((entry) => isValue(entry, accepted)) : isValue(value, accepted);
}

function isValue(value: unknown, accepted: readonly ClaimValue[]): boolean {
  return (
    (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && accepted.includes(value)
  );
}

/**
 * 401 `step_up_required` (RFC 9470) when the token's authentication is not the one the
 * requirement asks for: its `acr` is not one of `acr`, or its `auth_time` is more than `maxAge`
 * seconds before `now` (ms) or later than `now` plus the issuer's leeway (`clockLeewayOf`: JWT's
 * `leeway_seconds`, 0 for other modes). A token without `acr` / `auth_time`, and any API key,
 * fails such a requirement. The challenge tells the client all the requirement asks (`acr_values`, `max_age`),
 * so one new authentication can satisfy it.
 */
export function stepUpRefusal(
  requirement: AccessRequirement,
  context: AuthContext,
  now: () => number,
): AuthError | null {
  const { acr, maxAge } = requirement;
  if (acr === undefined && maxAge === undefined) return null;
  const claims = verifiedClaims(context);
  const presented = claims === null ? undefined : readClaim(claims, 'acr');
  const authTime = claims === null ? undefined : readClaim(claims, 'auth_time');
  const strong = acr === undefined || (typeof presented === 'string' && acr.includes(presented));
  // NumericDate seconds against the clock's whole seconds, as `exp` and `iat` are compared.
  const recent = maxAge === undefined || isRecent(authTime, maxAge, Math.floor(now() / 1000), context);
  if (strong && recent) return null;
  return new AuthError('step_up_required', stepUpChallenge(acr ?? [], maxAge ?? null));
}

/**
 * At most `maxAge` seconds old, and not in the future beyond the issuer's leeway: OIDC's
 * `auth_time` is when the authentication happened, so a later one (an issuer's clock or bug)
 * would satisfy every `max_age` for as long as the token lives.
 */
function isRecent(authTime: unknown, maxAge: number, nowSeconds: number, context: AuthContext): boolean {
  if (typeof authTime !== 'number' || !Number.isFinite(authTime)) return false;
  return nowSeconds - authTime <= maxAge && authTime <= nowSeconds + clockLeewayOf(context);
}
