import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { normalizeHtu } from './request-target.js';

/** Larger proofs are refused before any decoding: a proof with an RSA-4096 key is under 2 KiB. */
export const MAX_PROOF_CHARS = 8 * 1024;
/** Longest `jti` kept: 96 random bits need 16 characters (RFC 9449 §4.2 asks for at least that). */
export const MAX_JTI_CHARS = 256;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Which check of RFC 9449 §4.3 a proof failed (for tests and diagnostics; never sent to the client). */
export type ProofFailure =
  'malformed' | 'typ' | 'alg' | 'header' | 'signature' | 'claims' | 'htm' | 'htu' | 'iat' | 'ath';

/** What a proof must match. */
export interface ProofExpectations {
  /** The request's method. */
  readonly method: string;
  /** The request's URI, normalised (see `requestTarget`). */
  readonly target: string;
  /** base64url(SHA-256(access token)), RFC 9449 §4.2 `ath`. */
  readonly tokenHash: string;
  readonly algorithms: readonly string[];
  /** `iat` may be this far before or after now. */
  readonly leewaySeconds: number;
  readonly nowMs: number;
}

/** A proof that passed: its key's RFC 7638 thumbprint, and its `jti` and `iat` for the replay check. */
export interface CheckedProof {
  readonly jkt: string;
  readonly jti: string;
  readonly iat: number;
}

/**
 * The checks of RFC 9449 §4.3 that a proof can pass on its own (replay and the token's binding are
 * the caller's): one compact JWS; `typ` `dpop+jwt`; `alg` one of `algorithms` (asymmetric only,
 * so never `none` or an HMAC); a `jwk` header that is a public key (jose's `EmbeddedJWK` refuses
 * private members) and verifies the signature; `jti`, `htm`, `htu`, `iat` present; `htm` the
 * method; `htu` the request URI without query and fragment (both normalised); `iat` within
 * `leewaySeconds` of now; `ath` the token's hash. Never throws.
 */
export async function checkDpopProof(
  proof: string,
  expected: ProofExpectations,
): Promise<CheckedProof | { readonly failure: ProofFailure }> {
  if (proof.length > MAX_PROOF_CHARS || !COMPACT_JWS.test(proof)) return { failure: 'malformed' };
  let payload: Record<string, unknown>;
  let jwk: JWK;
  try {
    const verified = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: [...expected.algorithms],
      currentDate: new Date(expected.nowMs),
      clockTolerance: expected.leewaySeconds,
    });
    payload = verified.payload;
    jwk = verified.protectedHeader.jwk as JWK;
  } catch (error) {
    return { failure: failureOf(error) };
  }
  const { jti, htm, htu, iat, ath } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_CHARS) return { failure: 'claims' };
  if (typeof htm !== 'string' || typeof htu !== 'string' || typeof iat !== 'number') return { failure: 'claims' };
  if (htm !== expected.method) return { failure: 'htm' };
  if (normalizeHtu(htu) !== expected.target) return { failure: 'htu' };
  if (Math.abs(expected.nowMs / 1000 - iat) > expected.leewaySeconds) return { failure: 'iat' };
  if (ath !== expected.tokenHash) return { failure: 'ath' };
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), jti, iat };
}

/** jose's error codes, in the one place that reads them. */
function failureOf(error: unknown): ProofFailure {
  const { code, claim } = Object(error) as {
    code?: unknown;
    claim?: unknown;
  };
  switch (code) {
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'alg';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'signature';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      // `typ` is checked among the claims; a wrong `iat`, `exp` or `nbf` is outside the window.
      return claim === 'typ' ? 'typ' : 'iat';
    case 'ERR_JWT_EXPIRED':
      return 'iat';
    case 'ERR_JWS_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
    case 'ERR_JWK_INVALID':
      // The protected header: not decodable, or (EmbeddedJWK) no `jwk`, a private or unusable key, one that does not fit `alg`.
      return 'header';
    default:
      return 'malformed';
  }
}
