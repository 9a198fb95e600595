import { CompactSign, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import type { SigningKey } from './signing-key.js';

/** Extra protected-header members (`jku`, `crit`, a hostile `kid`, ...). */
export type ExtraHeader = Readonly<Record<string, unknown>>;

/**
 * Signs `claims` as a JWT with `key`. The header holds `alg`, the key's `kid` and `typ: "JWT"`,
 * then `header` on top. Claims are taken as given: set `exp` yourself.
 *
 * @example
 * const token = await mintToken(key, { sub: 'u-1', exp: NOW + 60 });
 */
export async function mintToken(key: SigningKey, claims: JWTPayload, header: ExtraHeader = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(key.kid === undefined ? {} : { kid: key.kid }), ...header })
    .sign(key.signingKey);
}

/**
 * Signs any payload (an array, a string, bytes) under any protected header with raw key
 * material, for tokens `SignJWT` refuses to make: a JSON array as payload, HS256 keyed with a
 * PEM public key, an unknown `crit`.
 */
export async function signRaw(
  signingKey: CryptoKey | Uint8Array,
  header: ExtraHeader & { alg: string },
  payload: unknown,
): Promise<string> {
  const bytes = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const jws = new CompactSign(new TextEncoder().encode(bytes)).setProtectedHeader(header);
  return jws.sign(signingKey, { crit: critOf(header) });
}

/** jose refuses to sign with a `crit` it does not know unless told that it does. */
function critOf(header: ExtraHeader): Record<string, boolean> {
  const crit = Array.isArray(header.crit) ? (header.crit as unknown[]) : [];
  return Object.fromEntries(crit.map((name) => [String(name), true]));
}

/**
 * Joins base64url segments without signing: `header` and `payload` are JSON-encoded unless
 * they are strings (a string is encoded as it is, for "header is not JSON"). For `alg: none`
 * tokens, stripped signatures, forged signatures.
 */
export function forgeToken(header: unknown, payload: unknown, signature = ''): string {
  return `${segment(header)}.${segment(payload)}.${signature}`;
}

function segment(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}
