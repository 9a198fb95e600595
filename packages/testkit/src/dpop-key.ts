import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createHash, randomUUID } from 'node:crypto';

/** What one DPoP proof says; each field may be overridden to make a wrong proof on purpose. */
export interface DpopProofOptions {
  /** `htm`. */
  readonly method: string;
  /** `htu`: the URL the request goes to (its query and fragment are dropped, as RFC 9449 §4.2 says). */
  readonly url: string;
  /** The access token the proof goes with: `ath` is its hash. Absent at a token endpoint. */
  readonly token?: string;
  /** `iat` in seconds; default now. */
  readonly iat?: number;
  /** `jti`; default a new random UUID. */
  readonly jti?: string;
  /** Protected header members on top of `{ typ: 'dpop+jwt', alg, jwk }` (`typ`, `jwk`, ...). */
  readonly header?: Readonly<Record<string, unknown>>;
  /** Claims on top of the computed ones (`{ ath: 'x' }`, `{ htm: undefined }`). */
  readonly claims?: Readonly<Record<string, unknown>>;
}

/** A client's DPoP key pair and the proofs it makes (RFC 9449 §4). */
export interface DpopKey {
  readonly alg: string;
  /** The public JWK that every proof carries. */
  readonly publicJwk: JWK;
  /** The private JWK (to make a proof that wrongly carries it). */
  readonly privateJwk: JWK;
  /** RFC 7638 thumbprint of the public key: the `cnf.jkt` of tokens bound to it. */
  readonly jkt: string;
  /** A proof signed with this key. */
  proof(options: DpopProofOptions): Promise<string>;
}

/**
 * A fresh DPoP key pair (default ES256) for a test client, made with jose.
 *
 * @example
 * const client = await createDpopKey();
 * const proof = await client.proof({ method: 'GET', url: 'http://127.0.0.1:1234/invoke', token });
 */
export async function createDpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  return {
    alg,
    publicJwk,
    privateJwk,
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
    proof: (options) => signDpopProof(privateKey, alg, publicJwk, options),
  };
}

/** Signs a proof with any key under any `alg` (a symmetric one too, to test that it is refused). */
export async function signDpopProof(
  key: CryptoKey | Uint8Array,
  alg: string,
  jwk: JWK,
  options: DpopProofOptions,
): Promise<string> {
  const url = new URL(options.url);
  const claims: Record<string, unknown> = {
    jti: options.jti ?? randomUUID(),
    htm: options.method,
    htu: `${url.origin}${url.pathname}`,
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.token === undefined ? {} : { ath: createHash('sha256').update(options.token).digest('base64url') }),
    ...options.claims,
  };
  return new SignJWT(claims).setProtectedHeader({ typ: 'dpop+jwt', alg, jwk, ...options.header }).sign(key);
}
