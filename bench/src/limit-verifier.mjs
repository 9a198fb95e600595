// The physical limit of JWT verification in Node: the key parsed once into a KeyObject, one
// node:crypto call for the signature, JSON.parse of header and payload, and the cheapest claim
// checks. Deliberately minimal (no crit, typ, nbf, or size rules): a yardstick, never a verifier.
import { createHmac, createPublicKey, createSecretKey, timingSafeEqual, verify } from 'node:crypto';

const decodeJson = (part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** The signature check alone; `true` when the signature over `signingInput` is valid. */
export function signatureChecker(alg, material) {
  if (alg === 'HS256') {
    const key = createSecretKey(Buffer.from(material, 'utf8'));
    return (signingInput, signature) => {
      const mac = createHmac('sha256', key).update(signingInput).digest();
      return mac.length === signature.length && timingSafeEqual(mac, signature);
    };
  }
  const key = createPublicKey(material);
  // RFC 7518 §3.4: ES256 signatures are R || S, not DER.
  const keyInput = alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key;
  return (signingInput, signature) => verify('sha256', Buffer.from(signingInput), keyInput, signature);
}

/** A verifier returning the payload, or null when the token does not pass. */
export function verifyLimit(alg, material, { issuer, audience }) {
  const check = signatureChecker(alg, material);
  return (token) => {
    const first = token.indexOf('.');
    const last = token.lastIndexOf('.');
    if (first <= 0 || last === first) return null;
    try {
      if (decodeJson(token.slice(0, first)).alg !== alg) return null;
      if (!check(token.slice(0, last), Buffer.from(token.slice(last + 1), 'base64url'))) return null;
      const payload = decodeJson(token.slice(first + 1, last));
      const aud = payload.aud;
      if (typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) return null;
      if (payload.iss !== issuer || !(aud === audience || (Array.isArray(aud) && aud.includes(audience)))) return null;
      return payload;
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
export function verifyLimitAsync(alg, material, { issuer, audience }) {
  const key = createPublicKey(material);
  const keyInput = alg === 'ES256' ? { key, dsaEncoding: 'ieee-p1363' } : key;
  return (token, done) => {
    const first = token.indexOf('.');
    const last = token.lastIndexOf('.');
    if (first <= 0 || last === first) return done(null);
    let header;
    try {
      header = decodeJson(token.slice(0, first));
    } catch {
      return done(null);
    }
    if (header.alg !== alg) return done(null);
    const signature = Buffer.from(token.slice(last + 1), 'base64url');
    verify('sha256', Buffer.from(token.slice(0, last)), keyInput, signature, (error, valid) => {
      if (error || !valid) return done(null);
      try {
        const payload = decodeJson(token.slice(first + 1, last));
        const aud = payload.aud;
        if (typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) return done(null);
        if (payload.iss !== issuer || !(aud === audience || (Array.isArray(aud) && aud.includes(audience))))
          return done(null);
        return done(payload);
      } catch {
        return done(null);
      }
    });
  };
}
