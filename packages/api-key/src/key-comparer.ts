import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Compares presented keys with the expected one in constant time, hiding its length too:
 * both sides go through HMAC-SHA-256 under a random per-process key, and the fixed-size digests
 * are compared with `timingSafeEqual`. The expected key's digest is computed once.
 */
export function createKeyComparer(expected: Buffer): (presented: Buffer) => boolean {
  const hmacKey = randomBytes(32);
  const digest = (value: Buffer) => createHmac('sha256', hmacKey).update(value).digest();
  const expectedDigest = digest(expected);
  return (presented) => presented.length > 0 && timingSafeEqual(digest(presented), expectedDigest);
}

const ABOVE_LATIN1 = /[^\x00-\xff]/;

/**
 * The bytes of a key as it arrived in a header. Node decodes header bytes as Latin-1, so
 * encoding back as Latin-1 gives the exact bytes the client sent (a UTF-8 key stays UTF-8).
 * A string holding a character above U+00FF never came through that decoding (a hand-made
 * request), so it is taken as UTF-8: Latin-1 encoding would keep only each character's low
 * byte, and `'\u0161\u0162'` would then match the key `ab`.
 */
export function presentedBytes(key: string): Buffer {
  return Buffer.from(key, ABOVE_LATIN1.test(key) ? 'utf8' : 'latin1');
}
