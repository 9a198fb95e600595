import { bearerError } from '@authlayer/core';
import type { MaybePromise } from '@authlayer/core';
import type { JWTVerifyGetKey } from 'jose';
import { createFastVerifier } from './fast-verify.js';
import { createJoseVerifier, type TokenVerifier, type VerifiedClaims, type VerifierSettings } from './jose-verify.js';

export type { TokenVerifier, VerifiedClaims, VerifierSettings } from './jose-verify.js';

/** Larger tokens are refused before any decoding or crypto. Far above real access tokens. */
export const MAX_TOKEN_BYTES = 8 * 1024;
// RFC 7515 §7.1: BASE64URL(header) '.' BASE64URL(payload) '.' BASE64URL(signature). A JWE has
// five parts and is refused here too. No padding, no whitespace (RFC 7515 §2, base64url).
export const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** {@link TokenVerifier} that answers in the same turn when it can: claims, a throw, or a Promise. */
export type TokenVerifierNow = (token: string) => MaybePromise<VerifiedClaims>;

/**
 * Builds the verifier of the handler: the token's shape is checked first (at most
 * {@link MAX_TOKEN_BYTES}, three base64url segments), then the fast path (node:crypto with
 * `KeyObject`s, jose's semantics; see `createFastVerifier`), which hands what it does not handle
 * to jose's `jwtVerify` (see `createJoseVerifier`). Synchronous with a static key.
 */
export function createTokenVerifierNow(key: JWTVerifyGetKey, settings: VerifierSettings): TokenVerifierNow {
  const verify = createFastVerifier(key, settings, createJoseVerifier(key, settings));
  return (token) => {
    if (token.length > MAX_TOKEN_BYTES || !COMPACT_JWS.test(token)) throw bearerError('token_malformed');
    return verify(token);
  };
}

/** {@link createTokenVerifierNow} as a {@link TokenVerifier}: every answer a Promise (what the differential test holds to jose's). */
export function createTokenVerifier(key: JWTVerifyGetKey, settings: VerifierSettings): TokenVerifier {
  const verify = createTokenVerifierNow(key, settings);
  return (token) => {
    try {
      return Promise.resolve(verify(token));
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
