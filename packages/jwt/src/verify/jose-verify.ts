import type { JwtConfig } from '../config/jwt-section.js';
import { audienceRefusal, bearerError, sameAudience } from '@authlayer/core';
import {
  decodeJwt,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from 'jose';
import { joseErrorCode, translateJoseError } from './translate-jose-error.js';
import { timeFailure, timesOf } from './validate-claims.js';

/** The payload of a token that passed every check. */
export type VerifiedClaims = Readonly<JWTPayload>;

/**
 * Checks one compact JWS and resolves with its claims, or rejects with an `AuthError`.
 * The one entry point of verification, so a cache of verified tokens, a revocation hook or
 * several issuers can be put in front of it without touching the handler.
 */
export type TokenVerifier = (token: string) => Promise<VerifiedClaims>;

/** What a verifier needs besides the key. */
export interface VerifierSettings {
  readonly jwt: Pick<JwtConfig, 'issuer' | 'audience' | 'audienceStrict' | 'algorithms' | 'leewaySeconds'>;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

// Several keys without a `kid` may match one token; try no more than this many.
const MAX_CANDIDATE_KEYS = 4;

/**
 * The reference verifier, jose's `jwtVerify` all the way: only `algorithms` (RFC 8725 §3.1;
 * `none` is never among them), `exp` required, `nbf` and `iat` honoured with `leewaySeconds`,
 * `iss` and `aud` when configured, no unknown `crit` (RFC 7515 §4.1.11). The fast path hands it
 * what it does not handle itself (several candidate keys, a key that is not a CryptoKey).
 */
export function createJoseVerifier(key: JWTVerifyGetKey, settings: VerifierSettings): TokenVerifier {
  const { jwt, now } = settings;
  const options = (token: string): JWTVerifyOptions => ({
    algorithms: [...jwt.algorithms],
    requiredClaims: ['exp'],
    clockTolerance: jwt.leewaySeconds,
    currentDate: new Date(now()),
    ...(jwt.issuer === null ? {} : { issuer: jwt.issuer }),
    ...(jwt.audience === null ? {} : { audience: audiencesNaming(token, jwt.audience) }),
  });
  return async (token) => {
    const verifyOptions = options(token);
    let payload: JWTPayload;
    try {
      payload = await verifyWithCandidates(token, key, verifyOptions);
    } catch (error) {
      throw translateJoseError(error);
    }
    // jose has checked `nbf` and `exp` (and the types of all three); `timeFailure` adds the
    // handler's own `iat` rule, the same expressions the fast path and the cache use.
    const nowSeconds = Math.floor((verifyOptions.currentDate as Date).getTime() / 1000);
    const failure = timeFailure(timesOf(payload), nowSeconds, jwt.leewaySeconds);
    if (failure !== null) throw bearerError(failure);
    const strict = jwt.audience !== null && jwt.audienceStrict === true;
    const refusal = strict ? audienceRefusal(payload.aud, jwt.audience as string, true) : null;
    if (refusal !== null) throw refusal;
    return payload;
  };
}

/**
 * What jose is to take as the audience: the token's own `aud` entries that name `audience` as URIs
 * (see `audienceRefusal`), so that jose keeps its order of checks and compares them exactly; the
 * configured one when none does (jose then refuses it) or the token cannot be decoded (nor verified).
 */
function audiencesNaming(token: string, audience: string): string | string[] {
  let aud: unknown;
  try {
    aud = decodeJwt(token).aud;
  } catch {
    return audience;
  }
  const named = [aud]
    .flat()
    .filter((value): value is string => typeof value === 'string' && sameAudience(value, audience));
  return named.length === 0 ? audience : named;
}

/**
 * jose's key set throws `ERR_JWKS_MULTIPLE_MATCHING_KEYS` with an async iterator when several
 * keys fit a token without `kid` (for example during a rotation); try them in turn.
 */
async function verifyWithCandidates(
  token: string,
  key: JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  try {
    return (await jwtVerify(token, key, options)).payload;
  } catch (error) {
    if (joseErrorCode(error) !== 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') throw error;
    let tried = 0;
    for await (const candidate of error as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, candidate, options)).payload;
      } catch (inner) {
        if (joseErrorCode(inner) !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || ++tried >= MAX_CANDIDATE_KEYS)
          throw inner;
      }
    }
    throw error;
  }
}
