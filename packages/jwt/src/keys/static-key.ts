import { createPublicKey, type KeyObject } from 'node:crypto';
import { ConfigError, HMAC_ALGORITHMS, readSecretFile, type JwtAlgorithm } from '@authlayer/core';
import { resolve } from 'node:path';
import { importSPKI, type CryptoKey } from 'jose';

/** The config paths that errors name: `auth.jwt.…` or `auth.jwt.providers[i].…`. */
interface Paths {
  readonly key: string;
  readonly algorithms: string;
}

/** Key material as read: the field it comes from, how messages name it, and the value. */
export interface KeyMaterial {
  /** `public_key_env` or `public_key_file`. */
  readonly field: string;
  /** `environment variable JWT_PUBLIC_KEY`, `file /run/secrets/jwt.pem`. */
  readonly what: string;
  /** `undefined` for an unset variable. */
  readonly value: string | undefined;
}

/** What `public_key_env`'s variable holds. */
export function fromVariable(variable: string, env: Readonly<Record<string, string | undefined>>): KeyMaterial {
  return { field: 'public_key_env', what: `environment variable ${variable}`, value: env[variable] };
}

/**
 * What `public_key_file` holds, read whole (one trailing newline dropped).
 *
 * @throws ConfigError naming `field` and the path when the file is missing, unreadable or empty
 */
export function fromFile(path: string, field: string): KeyMaterial {
  return { field: 'public_key_file', what: `file ${resolve(path)}`, value: readSecretFile(path, field) };
}

/** A verification key per allowed algorithm, made once at start-up. */
export type StaticKeys = ReadonlyMap<JwtAlgorithm, CryptoKey>;

// RFC 7518 §3.2: an HMAC key must be at least as long as the hash output.
const HMAC_MIN_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };
// RFC 7518 §3.4: each ES algorithm names one curve (Node's names for them).
const EC_CURVE: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
const CURVE_LABEL: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };
// RFC 7518 §3.3: RSA keys of 2048 bits or more.
const RSA_MIN_BITS = 2048;

const isHmac = (alg: JwtAlgorithm): boolean => (HMAC_ALGORITHMS as readonly string[]).includes(alg);

/**
 * Prepares the key material that `public_key_env` or `public_key_file` names and prepares one key per allowed algorithm.
 * For RS and ES algorithms the variable holds a PEM public key (SPKI `PUBLIC KEY`, PKCS#1
 * `RSA PUBLIC KEY`; `\n` escapes count as line breaks); for HS algorithms it holds the shared secret, used
 * as its UTF-8 bytes.
 *
 * @param label - the config path of the issuer (`auth.jwt`, `auth.jwt.providers[0]`), for messages.
 * @throws ConfigError naming the variable when it is unset or empty, holds no usable key, holds a
 *   private key, or cannot serve one of the allowed algorithms (RS256 with an EC key, HS256 with
 *   a PEM key, an HMAC secret shorter than the hash, an RSA key under 2048 bits).
 */
export async function loadStaticKeys(
  material: KeyMaterial,
  algorithms: readonly JwtAlgorithm[],
  label: string,
): Promise<StaticKeys> {
  const paths: Paths = { key: `${label}.${material.field}`, algorithms: `${label}.algorithms` };
  const { value, what: variable } = material;
  if (value === undefined || value.trim() === '') {
    throw new ConfigError({ path: paths.key, message: `${variable} is unset or empty` });
  }
  const hmac = algorithms.filter(isHmac);
  if (hmac.length > 0 && hmac.length < algorithms.length) {
    throw new ConfigError({
      path: paths.algorithms,
      message: `one key (${variable}) cannot serve both HMAC (${hmac.join(', ')}) and public-key algorithms`,
    });
  }
  return hmac.length > 0 ? loadSecret(variable, value, hmac, paths) : loadPublicKey(variable, value, algorithms, paths);
}

async function loadSecret(
  variable: string,
  value: string,
  algorithms: readonly JwtAlgorithm[],
  paths: Paths,
): Promise<StaticKeys> {
  if (value.includes('-----BEGIN')) {
    throw new ConfigError({
      path: paths.key,
      message: `${variable} holds a PEM key, but HMAC algorithms (${algorithms.join(', ')}) need a shared secret`,
    });
  }
  const secret = new TextEncoder().encode(value);
  const keys = new Map<JwtAlgorithm, CryptoKey>();
  for (const alg of algorithms) {
    const min = HMAC_MIN_BYTES[alg] as number;
    if (secret.length < min) {
      throw new ConfigError({
        path: paths.key,
        message: `${variable} holds a secret of ${secret.length} bytes; ${alg} needs at least ${min} (RFC 7518 section 3.2)`,
      });
    }
    // Imported once here, not by jose on every verification.
    const hash = { name: 'HMAC', hash: `SHA-${alg.slice(2)}` };
    keys.set(alg, await crypto.subtle.importKey('raw', secret, hash, false, ['verify']));
  }
  return keys;
}

async function loadPublicKey(
  variable: string,
  value: string,
  algorithms: readonly JwtAlgorithm[],
  paths: Paths,
): Promise<StaticKeys> {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value)) {
    throw new ConfigError({
      path: paths.key,
      message: `${variable} holds a private key; give the public key`,
    });
  }
  const key = parsePublicKey(variable, value, paths);
  const spki = key.export({ type: 'spki', format: 'pem' }).toString();
  const keys = new Map<JwtAlgorithm, CryptoKey>();
  for (const alg of algorithms) {
    const problem = whyUnusable(key, alg);
    if (problem !== null) {
      throw new ConfigError({
        path: paths.algorithms,
        message: `${alg} cannot be used with ${problem} in ${variable}`,
      });
    }
    keys.set(alg, await importSPKI(spki, alg));
  }
  return keys;
}

function parsePublicKey(variable: string, value: string, paths: Paths): KeyObject {
  try {
    // Real-world variables often carry `\n` escapes instead of line breaks.
    return createPublicKey(value.includes('\\n') ? value.replaceAll('\\n', '\n') : value);
  } catch {
    throw new ConfigError({
      path: paths.key,
      message: `${variable} does not hold a PEM public key`,
    });
  }
}

/** `null` when `key` can verify `alg`, otherwise a description of the key for the message. */
function whyUnusable(key: KeyObject, alg: JwtAlgorithm): string | null {
  // A public KeyObject always has a type, and details with the modulus or the curve.
  const type = String(key.asymmetricKeyType);
  const details = key.asymmetricKeyDetails as { modulusLength?: number; namedCurve?: string };
  if (type === 'rsa') {
    const bits = Number(details.modulusLength);
    if (!alg.startsWith('RS')) return 'the RSA key';
    return bits < RSA_MIN_BITS ? `the ${bits}-bit RSA key (RSA keys need ${RSA_MIN_BITS} bits or more)` : null;
  }
  if (type === 'ec') {
    const curve = String(details.namedCurve);
    return EC_CURVE[alg] === curve ? null : `the EC ${CURVE_LABEL[curve] ?? curve} key`;
  }
  return `the ${type} key`;
}
