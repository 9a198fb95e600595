import type { JWTVerifyGetKey } from 'jose';
import { createFastVerifier } from './fast-verify.js';
import { createJoseVerifier, type TokenVerifier, type VerifierSettings } from './jose-verify.js';
import { refuse } from './translate-jose-error.js';

export type { TokenVerifier, VerifiedClaims, VerifierSettings } from './jose-verify.js';

/** Larger tokens are refused before any decoding or crypto. Far above real access tokens. */
export const MAX_TOKEN_BYTES = 8 * 1024;
// RFC 7515 §7.1: BASE64URL(header) '.' BASE64URL(payload) '.' BASE64URL(signature). A JWE has
// five parts and is refused here too. No padding, no whitespace (RFC 7515 §2, base64url).
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Builds the verifier of the handler: the token's shape is checked first (at most
 * {@link MAX_TOKEN_BYTES}, three base64url segments), then the fast path (node:crypto with
 * `KeyObject`s, jose's semantics; see `createFastVerifier`), which hands what it does not handle
 * to jose's `jwtVerify` (see `createJoseVerifier`).
 */
export function createTokenVerifier(key: JWTVerifyGetKey, settings: VerifierSettings): TokenVerifier {
  const verify = createFastVerifier(key, settings, createJoseVerifier(key, settings));
  // Not an async function: handing on the fast path's promise costs no extra turn.
  return (token) =>
    token.length > MAX_TOKEN_BYTES || !COMPACT_JWS.test(token) ? Promise.reject(refuse('token_malformed')) : verify(token);
}
