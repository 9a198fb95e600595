import { randomBytes } from 'node:crypto';
import type { JwtAlgorithm } from '@authlayer/core';
import { exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';

/** A key to sign test tokens with, and what a verifier is given for it. */
export interface SigningKey {
  readonly alg: JwtAlgorithm;
  /** `undefined` when created with `kid: null`. */
  readonly kid: string | undefined;
  /** Signs: the private key, or the HMAC secret's bytes. */
  readonly signingKey: CryptoKey | Uint8Array;
  /** The public JWK with `kid`, `alg` and `use: "sig"` (for HMAC: the secret as an `oct` JWK). */
  readonly publicJwk: JWK;
  /** What `public_key_env`'s variable holds: the SPKI PEM, or the HMAC secret. */
  readonly envValue: string;
}

let counter = 0;

/**
 * Generates a fresh key for `alg`: an RSA 2048-bit key pair, an EC key pair on the algorithm's
 * curve, or a random 64-character HMAC secret (long enough for HS512).
 *
 * @param options.kid - the key id; default a new `key-<n>`; `null` for none.
 */
export async function createSigningKey(alg: JwtAlgorithm, options: { kid?: string | null } = {}): Promise<SigningKey> {
  const kid = options.kid === null ? undefined : (options.kid ?? `key-${++counter}`);
  if (alg.startsWith('HS')) {
    const secret = randomBytes(48).toString('base64url');
    const bytes = new TextEncoder().encode(secret);
    const jwk: JWK = { kty: 'oct', k: Buffer.from(bytes).toString('base64url'), alg, kid, use: 'sig' };
    return { alg, kid, signingKey: bytes, publicJwk: jwk, envValue: secret };
  }
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), alg, kid, use: 'sig' };
  return { alg, kid, signingKey: privateKey, publicJwk, envValue: await exportSPKI(publicKey) };
}
