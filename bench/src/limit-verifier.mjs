// The physical limit of JWT verification in Node: the key parsed once into a KeyObject, one
// node:crypto call for the signature, JSON.parse of header and payload, and the cheapest claim
// checks. Deliberately minimal (no crit, typ, nbf, or size rules): a yardstick, never a verifier.
import { createHmac, createPublicKey, createSecretKey, timingSafeEqual, verify } from 'node:crypto';

const decodeJson = (part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** The key of an RS256 or ES256 check, as node:crypto's `verify` takes it. */
function publicKeyInput(alg, material) {
  const key = createPublicKey(material);
  // RFC 7518 §3.4: ES256 signatures are R || S, not DER.
  return alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key;
}

/** The signature check alone; `true` when the signature over `signingInput` is valid. */
export function signatureChecker(alg, material) {
  if (alg === 'HS256') {
    const key = createSecretKey(Buffer.from(material, 'utf8'));
    return (signingInput, signature) => {
      const mac = createHmac('sha256', key).update(signingInput).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    };
  }
  const keyInput = publicKeyInput(alg, material);
  return (signingInput, signature) => verify('sha256', Buffer.from(signingInput), keyInput, signature);
}

/**
 * The token's segments (`first` and `last` dot) when its header names `alg`, else null. Throws
 * on a header that is not base64url JSON.
 */
function split(token, alg) {
  const first = token.indexOf('.');
  const last = token.lastIndexOf('.');
  if (first <= 0 || last === first) return null;
  return decodeJson(token.slice(0, first)).alg === alg ? { first, last } : null;
}

/** The payload, once the signature passed, when `exp`, `iss` and `aud` do too; else null. Throws on bad JSON. */
function acceptedPayload(token, { first, last }, { issuer, audience }) {
  const payload = decodeJson(token.slice(first + 1, last));
  const aud = payload.aud;
  if (typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) return null;
  if (payload.iss !== issuer || !(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) return null;
  return payload;
}

/** A verifier returning the payload, or null when the token does not pass. */
export function verifyLimit(alg, material, expected) {
  const check = signatureChecker(alg, material);
  return (token) => {
    try {
      const at = split(token, alg);
      if (at === null) return null;
      if (!check(token.slice(0, at.last), Buffer.from(token.slice(at.last + 1), 'base64url'))) return null;
      return acceptedPayload(token, at, expected);
    } catch {
      return null;
    }
  };
}

/**
 * {@link verifyLimit} with the signature checked by node:crypto's callback form, which runs on
 * libuv's thread pool (as WebCrypto does, and so jose): `done(payload | null)` a turn later.
 * RS256 and ES256 only (an HMAC is too cheap to be worth a thread hop).
 */
export function verifyLimitAsync(alg, material, expected) {
  const keyInput = publicKeyInput(alg, material);
  return (token, done) => {
    let at;
    try {
      at = split(token, alg);
    } catch {
      return done(null);
    }
    if (at === null) return done(null);
    const signature = Buffer.from(token.slice(at.last + 1), 'base64url');
    verify('sha256', Buffer.from(token.slice(0, at.last)), keyInput, signature, (error, valid) => {
      if (error || !valid) return done(null);
      try {
        return done(acceptedPayload(token, at, expected));
      } catch {
        return done(null);
      }
    });
  };
}

const WEBCRYPTO = {
  RS256: { import: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, verify: { name: 'RSASSA-PKCS1-v1_5' } },
  ES256: { import: { name: 'ECDSA', namedCurve: 'P-256' }, verify: { name: 'ECDSA', hash: 'SHA-256' } },
  HS256: { import: { name: 'HMAC', hash: 'SHA-256' }, verify: { name: 'HMAC' } },
};

/** The WebCrypto signature check alone: `(signingInput, signature) => Promise<boolean>`. */
export async function webCryptoSignatureChecker(alg, material) {
  const { subtle } = globalThis.crypto;
  const params = WEBCRYPTO[alg];
  const key =
    alg === 'HS256'
      ? await subtle.importKey('raw', Buffer.from(material, 'utf8'), params.import, false, ['verify'])
      : await subtle.importKey(
          'spki',
          createPublicKey(material).export({ type: 'spki', format: 'der' }),
          params.import,
          false,
          ['verify'],
        );
  return (signingInput, signature) => subtle.verify(params.verify, key, signature, signingInput);
}

/**
 * {@link verifyLimit} with the signature checked by WebCrypto (`crypto.subtle.verify`, the key
 * imported once), as jose does: resolves the payload, or null. ES256 signatures are already
 * R || S, the form WebCrypto takes.
 */
export async function verifyLimitWebCrypto(alg, material, expected) {
  const check = await webCryptoSignatureChecker(alg, material);
  return async (token) => {
    try {
      const at = split(token, alg);
      if (at === null) return null;
      const signature = Buffer.from(token.slice(at.last + 1), 'base64url');
      const valid = await check(Buffer.from(token.slice(0, at.last)), signature);
      return valid ? acceptedPayload(token, at, expected) : null;
    } catch {
      return null;
    }
  };
}
