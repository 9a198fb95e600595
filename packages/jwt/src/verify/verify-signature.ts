import { bearerError } from '@authlayer/core';
import { createHmac, KeyObject, timingSafeEqual, verify } from 'node:crypto';
import type { JwtAlgorithm } from '@authlayer/core';
import type { CryptoKey } from 'jose';

// RFC 7518 §3.4: the JWS signature of ES256/384/512 is R || S, each coordinate exactly this long.
const EC_COORDINATE_BYTES: Readonly<Record<string, number>> = { ES256: 32, ES384: 48, ES512: 66 };
// RFC 7518 §3.4: each ES algorithm names one curve (WebCrypto's names, as a CryptoKey reports them).
const EC_CURVE: Readonly<Record<string, string>> = { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' };
// RFC 7518 §3.3, and jose: RSA keys of 2048 bits or more.
const RSA_MIN_BITS = 2048;

/** What a WebCrypto key's `algorithm` may hold, as far as JWS verification cares. */
interface KeyAlgorithm {
  readonly name?: string;
  readonly hash?: { readonly name?: string };
  readonly namedCurve?: string;
  readonly modulusLength?: number;
}

// Per CryptoKey, per algorithm: its KeyObject, or null when the key does not fit the algorithm.
// A CryptoKey's type, algorithm and usages never change, so the answer is made once per pair.
const keyObjects = new WeakMap<CryptoKey, Map<JwtAlgorithm, KeyObject | null>>();

/** Is `key` a WebCrypto key (of this realm or another, as jose tests it)? */
export function isCryptoKey(key: unknown): key is CryptoKey {
  return (
    typeof key === 'object' &&
    key !== null &&
    (key as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'CryptoKey'
  );
}

/**
 * The node:crypto `KeyObject` of a WebCrypto key, made once per key and algorithm (a `WeakMap`, so keys of a
 * refetched JWKS are let go with the old set), after the checks jose makes before it verifies:
 * the key is public (secret for HS\*), can `verify`, and was imported for exactly `alg`:
 * RSASSA-PKCS1-v1_5 with the algorithm's hash and 2048 bits or more, ECDSA on the algorithm's
 * curve, HMAC with its hash. Any mismatch is `token_malformed`, as jose's `TypeError` becomes.
 */
export function keyObjectFor(key: CryptoKey, alg: JwtAlgorithm): KeyObject {
  let byAlg = keyObjects.get(key);
  if (byAlg === undefined) {
    byAlg = new Map();
    keyObjects.set(key, byAlg);
  }
  let keyObject = byAlg.get(alg);
  if (keyObject === undefined) {
    // Made once per key and algorithm: the checks read getters that allocate (`usages`).
    keyObject = fitsAlgorithm(key, alg) ? KeyObject.from(key) : null;
    byAlg.set(alg, keyObject);
  }
  if (keyObject === null) throw bearerError('token_malformed');
  return keyObject;
}

function fitsAlgorithm(key: CryptoKey, alg: JwtAlgorithm): boolean {
  const algorithm = key.algorithm as KeyAlgorithm;
  const hash = `SHA-${alg.slice(2)}`;
  if (!key.usages.includes('verify')) return false;
  switch (alg.slice(0, 2)) {
    case 'HS':
      return key.type === 'secret' && algorithm.name === 'HMAC' && algorithm.hash?.name === hash;
    case 'ES':
      return key.type === 'public' && algorithm.name === 'ECDSA' && algorithm.namedCurve === EC_CURVE[alg];
    default:
      return (
        key.type === 'public' &&
        algorithm.name === 'RSASSA-PKCS1-v1_5' &&
        algorithm.hash?.name === hash &&
        Number(algorithm.modulusLength) >= RSA_MIN_BITS
      );
  }
}

/**
 * Checks a JWS signature with node:crypto (RFC 7515 §5.2, RFC 7518 §3): HS\* by recomputing the
 * HMAC and comparing in constant time, on equal lengths only; ES\* on the raw `R || S` form
 * (`ieee-p1363`), whose length must be exactly twice the curve's coordinate; RS\* with
 * RSASSA-PKCS1-v1_5. `input` is the signing input, ASCII (RFC 7515 §5.2). `false` for any
 * signature that does not verify, never a throw.
 */
export function verifySignature(alg: JwtAlgorithm, key: KeyObject, input: string, signature: Buffer): boolean {
  const hash = `sha${alg.slice(2)}`;
  try {
    switch (alg.slice(0, 2)) {
      case 'HS': {
        const mac = createHmac(hash, key).update(input, 'latin1').digest();
        return mac.length === signature.length && timingSafeEqual(mac, signature);
      }
      case 'ES':
        return (
          signature.length === 2 * (EC_COORDINATE_BYTES[alg] as number) &&
          verify(hash, Buffer.from(input, 'latin1'), { key, dsaEncoding: 'ieee-p1363' }, signature)
        );
      default:
        return verify(hash, Buffer.from(input, 'latin1'), key, signature);
    }
  } catch {
    // jose: a throwing crypto.subtle.verify is a failed verification.
    return false;
  }
}
