import { randomInt } from 'node:crypto';
import { crc32 } from './crc32.js';

// Keys that say what they are: `<prefix>_<32 base62>_<CRC-32 of the rest, 6 base62>`, as GitHub's
// and Zuplo's are, so a typo or garbage is refused without a lookup and secret scanners find leaks.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** A prefix: a letter, then letters, digits and `_`, at most 32 characters (`sk_live`). */
export const KEY_PREFIX = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;
const SHAPE = /^([A-Za-z][A-Za-z0-9_]{0,31})_([0-9A-Za-z]{32})_([0-9A-Za-z]{6})$/;

/**
 * The regular expression for secret scanners: every checksummed key of `prefix`.
 *
 * @example
 * scannerPattern('sk_live'); // '\\bsk_live_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}\\b'
 */
export function scannerPattern(prefix: string): string {
  return `\\b${prefix}_[0-9A-Za-z]{${RANDOM_LENGTH}}_[0-9A-Za-z]{${CHECKSUM_LENGTH}}\\b`;
}

/** The checksum of `body` (`<prefix>_<32 characters>`): CRC-32 (IEEE) in base62, 6 characters. */
export function checksumOf(body: string): string {
  let value = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) {
    out = BASE62[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/**
 * A new key of `prefix`: 32 characters drawn uniformly from base62 by the operating system's
 * CSPRNG (190 bits), and its checksum.
 *
 * @throws TypeError for a prefix that is not a letter followed by letters, digits and `_`
 */
export function newChecksummedKey(prefix: string): string {
  if (!KEY_PREFIX.test(prefix)) {
    throw new TypeError('the prefix must be a letter, then letters, digits and _ (at most 32 characters)');
  }
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i += 1) random += BASE62[randomInt(62)];
  const body = `${prefix}_${random}`;
  return `${body}_${checksumOf(body)}`;
}

/**
 * Whether `key` is a checksummed key of one of `prefixes` (`null`: of any prefix): its shape, its
 * prefix, and its checksum. The work does not depend on where a wrong key differs: the shape is
 * one regular expression, the checksum is always computed and compared in constant time, and the
 * prefixes are all compared.
 */
export function isChecksummedKey(key: string, prefixes: ReadonlySet<string> | null): boolean {
  const parts = SHAPE.exec(key);
  if (parts === null) return false;
  const [, prefix, random, checksum] = parts as unknown as [string, string, string, string];
  const expected = checksumOf(`${prefix}_${random}`);
  // Both are 6 characters: every one is compared, whichever differs (no Buffer per request).
  let difference = 0;
  for (let i = 0; i < CHECKSUM_LENGTH; i += 1) difference |= expected.charCodeAt(i) ^ checksum.charCodeAt(i);
  return (prefixes === null || prefixes.has(prefix)) && difference === 0;
}

/** The prefix of a checksummed key, or null when `key` does not have the shape. */
export function prefixOf(key: string): string | null {
  return SHAPE.exec(key)?.[1] ?? null;
}
