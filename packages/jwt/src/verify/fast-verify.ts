import { bearerError } from '@authlayer/core';
import type { JwtAlgorithm, MaybePromise } from '@authlayer/core';
import type { CompactJWSHeaderParameters, CryptoKey, FlattenedJWSInput, JWTVerifyGetKey } from 'jose';
import { createHeaderDecoder, decodeSegment, parseJsonObject } from './decode-jws.js';
import type { TokenVerifier, VerifiedClaims, VerifierSettings } from './jose-verify.js';
import { joseErrorCode, translateJoseError } from './translate-jose-error.js';
import { validateClaims } from './validate-claims.js';
import { isCryptoKey, keyObjectFor, verifySignature } from './verify-signature.js';

/** The three segments of a compact JWS, as sent. */
interface Segments {
  readonly protected: string;
  readonly payload: string;
  readonly signature: string;
}

/** What the key resolver answered: a key, or "let jose handle this token". */
const DELEGATE = Symbol('delegate');

/**
 * The fast verifier: the same checks as jose 6's `jwtVerify` (with the handler's options and its
 * `iat` rule), in the same order and with the same failure reasons, but the signature is checked
 * by node:crypto with a `KeyObject` made once per key, instead of WebCrypto on every call.
 * A differential test (test/differential.test.ts) holds it to jose's answers on thousands of
 * hostile, mutated and re-signed tokens.
 *
 * Order, as jose's: header (JSON object, `crit`, `alg`) → key lookup → signature decoding and
 * check → payload decoding → no RFC 7797 unencoded payload → claims set (see `validateClaims`).
 * `now()` is read once, first, as jose reads `currentDate`.
 *
 * Synchronous when the key resolver answers synchronously (a static key): it returns the claims
 * or throws `AuthError` in the same turn; else it returns a Promise.
 *
 * The caller has checked the token's shape (three base64url segments, size). Tokens the fast
 * path does not handle itself go to `fallback` (jose): several keys fitting a token without
 * `kid`, or a resolver that answers something other than a CryptoKey.
 */
export function createFastVerifier(
  key: JWTVerifyGetKey,
  settings: VerifierSettings,
  fallback: TokenVerifier,
): (token: string) => MaybePromise<VerifiedClaims> {
  const { jwt, now } = settings;
  const decodeHeader = createHeaderDecoder(new Set(jwt.algorithms));
  return (token) => {
    // As jose's `currentDate: new Date(now())`: a clock beyond what a Date holds becomes NaN.
    const nowSeconds = Math.floor(new Date(now()).getTime() / 1000);
    const first = token.indexOf('.');
    const last = token.lastIndexOf('.');
    const jws = {
      protected: token.slice(0, first),
      payload: token.slice(first + 1, last),
      signature: token.slice(last + 1),
    };
    const { header, alg, b64 } = decodeHeader(jws.protected);
    const resolved = resolveKey(key, header as CompactJWSHeaderParameters, jws);
    const check = (found: unknown) =>
      isCryptoKey(found) ? checkWith(found, token, jws, alg, b64, nowSeconds) : fallback(token);
    if (resolved instanceof Promise) return resolved.then(check);
    // A static key is returned synchronously: the whole check runs in this turn, and throws.
    return check(resolved);
  };

  /** Signature, payload and claims, once the key is known (jose's order). */
  function checkWith(
    found: CryptoKey,
    token: string,
    jws: Segments,
    alg: JwtAlgorithm,
    b64: boolean,
    nowSeconds: number,
  ) {
    const keyObject = keyObjectFor(found, alg);
    const signature = decodeSegment(jws.signature);
    // RFC 7515 §5.2: the signing input is the ASCII of `header.payload`, exactly as sent.
    if (!verifySignature(alg, keyObject, token.slice(0, token.lastIndexOf('.')), signature)) {
      throw bearerError('signature_invalid');
    }
    const payload = decodeSegment(jws.payload);
    // RFC 7797 §7: an unencoded payload is not for JWTs; jose refuses it after the signature.
    if (!b64) throw bearerError('token_malformed');
    const claims = parseJsonObject(payload);
    validateClaims(claims, jwt, nowSeconds);
    return claims;
  }
}

/**
 * The resolver's key (or a promise of it); {@link DELEGATE} when several keys fit; its errors
 * as AuthErrors.
 */
function resolveKey(key: JWTVerifyGetKey, header: CompactJWSHeaderParameters, jws: FlattenedJWSInput): unknown {
  try {
    const resolved: unknown = key(header, jws);
    return resolved instanceof Promise ? resolved.catch(keyFailure) : resolved;
  } catch (error) {
    return keyFailure(error);
  }
}

function keyFailure(error: unknown): typeof DELEGATE {
  if (joseErrorCode(error) === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') return DELEGATE;
  throw translateJoseError(error);
}
