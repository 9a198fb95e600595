import type { JwtConfig } from '../config/jwt-section.js';
import { audienceRefusal, bearerError } from '@authlayer/core';
import type { AuthFailure } from '@authlayer/core';

/** The time claims of a verified token, as the token gave them (RFC 7519 §4.1.4–4.1.6). */
export interface TokenTimes {
  readonly exp: number;
  readonly nbf: number | undefined;
  readonly iat: number | undefined;
}

/** What claims validation needs from `auth.jwt`. */
export type ClaimRules = Pick<JwtConfig, 'issuer' | 'audience' | 'audienceStrict' | 'leewaySeconds'>;

/**
 * Checks a decoded claims set the way jose 6's `jwtVerify` does with the handler's options
 * (`requiredClaims: ['exp']`, `issuer`, `audience`, `clockTolerance`), followed by the handler's
 * own `iat` rule, in the same order, so the first failure is the one jose would report:
 *
 * 1. presence of `iss`, then `aud` (when configured), then `exp` (RFC 7519 §4.1.4: required here);
 * 2. `iss` equals `issuer`; `aud` is `audience` or a list holding it (RFC 7519 §4.1.1, §4.1.3),
 *    compared as URIs (see `audienceRefusal`; with `audienceStrict`, every entry names it);
 * 3. `iat` and `nbf` are numbers when present; `nbf` ≤ now + leeway; `exp` is a number and
 *    > now − leeway; then `iat` ≤ now + leeway (see {@link timeFailure}).
 *
 * Numbers are JSON numbers, so `1e400` is `Infinity` and passes as jose lets it pass.
 *
 * @param nowSeconds - `Math.floor(ms / 1000)`, as jose computes it.
 * @throws AuthError with jose's reason (translated as `translateJoseError` does).
 */
export function validateClaims(claims: Readonly<Record<string, unknown>>, rules: ClaimRules, nowSeconds: number): void {
  checkPresence(claims, rules);
  if (rules.issuer !== null && claims.iss !== rules.issuer) throw bearerError('issuer_mismatch');
  if (rules.audience !== null) {
    const refusal = audienceRefusal(claims.aud, rules.audience, rules.audienceStrict);
    if (refusal !== null) throw refusal;
  }
  // jose refuses a clock that is not a finite number here, after iss and aud (a TypeError).
  if (!Number.isFinite(nowSeconds)) throw bearerError('token_malformed');
  const iat = numericDate(claims.iat);
  const nbf = numericDate(claims.nbf);
  // jose checks nbf before it looks at the type of exp.
  if (nbf !== undefined && nbf > nowSeconds + rules.leewaySeconds) throw bearerError('token_not_yet_valid');
  const exp = numericDate(claims.exp) as number;
  const failure = timeFailure({ exp, nbf, iat }, nowSeconds, rules.leewaySeconds);
  if (failure !== null) throw bearerError(failure);
}

/**
 * The time checks alone, on claims already known to be numbers: `null` when the token is valid
 * at `nowSeconds`. The same expressions as jose's (`nbf > now + tolerance`,
 * `exp <= now - tolerance`) and the handler's `iat > now + leeway`, so a cached token is
 * refused at exactly the second a fresh verification would refuse it.
 */
export function timeFailure(times: TokenTimes, nowSeconds: number, leeway: number): AuthFailure | null {
  if (times.nbf !== undefined && times.nbf > nowSeconds + leeway) return 'token_not_yet_valid';
  if (times.exp <= nowSeconds - leeway) return 'token_expired';
  // jose checks `iat` in the future only with maxTokenAge; the handler refuses it (README).
  if (times.iat !== undefined && times.iat > nowSeconds + leeway) return 'token_not_yet_valid';
  return null;
}

/**
 * The time claims of claims that passed {@link validateClaims} (or jose's checks): `exp` is a
 * number, `nbf` and `iat` numbers or absent, so the claims are read as they are, not copied.
 */
export function timesOf(claims: Readonly<Record<string, unknown>>): TokenTimes {
  return claims as unknown as TokenTimes;
}

/** jose's presence check runs over `[exp, aud, iss]` reversed: `iss` first. */
function checkPresence(claims: Readonly<Record<string, unknown>>, rules: ClaimRules): void {
  if (rules.issuer !== null && !Object.hasOwn(claims, 'iss')) throw bearerError('issuer_mismatch');
  if (rules.audience !== null && !Object.hasOwn(claims, 'aud')) throw bearerError('audience_mismatch');
  if (!Object.hasOwn(claims, 'exp')) throw bearerError('token_malformed');
}

/** `undefined` when absent; a claim present but not a number is malformed (jose: `invalid`). */
function numericDate(value: unknown): number | undefined {
  if (value === undefined || typeof value === 'number') return value;
  throw bearerError('token_malformed');
}
