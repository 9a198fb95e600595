import { describe, expect, it } from '@jest/globals';
import { inspect } from 'node:util';
import { createKeyComparer, presentedBytes } from '../src/key-comparer.js';

const KEY = 'k3y-0123456789abcdef';
const MiB = 1024 * 1024;

describe('createKeyComparer', () => {
  const matches = createKeyComparer(Buffer.from(KEY));

  it('matches the expected key', () => {
    expect(matches(Buffer.from(KEY))).toBe(true);
  });

  it.each([
    ['a wrong key of equal length', 'k3y-0123456789abcdeX'],
    ['a key differing in the first character', 'K3y-0123456789abcdef'],
    ['a prefix of the key', KEY.slice(0, -1)],
    ['an extension of the key', `${KEY}0`],
    ['the key in upper case', KEY.toUpperCase()],
    ['the key with a trailing NUL', `${KEY}\u0000`],
    ['an empty key', ''],
  ])('refuses %s', (_name, presented) => {
    expect(matches(Buffer.from(presented))).toBe(false);
  });

  it('compares fixed-size digests: a 1-byte and a 1 MiB wrong key both give false, without throwing', () => {
    // timingSafeEqual on the raw bytes would throw a RangeError on a length mismatch.
    expect(matches(Buffer.from('x'))).toBe(false);
    expect(matches(Buffer.alloc(MiB, 'k'))).toBe(false);
    expect(matches(Buffer.concat([Buffer.from(KEY), Buffer.alloc(MiB)]))).toBe(false);
  });

  it('never matches an empty presented key, even against an empty expected key', () => {
    expect(createKeyComparer(Buffer.alloc(0))(Buffer.alloc(0))).toBe(false);
  });

  it('does not keep the expected buffer: changing it afterwards changes nothing', () => {
    const expected = Buffer.from(KEY);
    const compare = createKeyComparer(expected);
    expected.fill(0);
    expect(compare(Buffer.from(KEY))).toBe(true);
    expect(compare(Buffer.alloc(KEY.length))).toBe(false);
  });

  it('gives two comparers of the same key the same answers', () => {
    const other = createKeyComparer(Buffer.from(KEY));
    expect([other(Buffer.from(KEY)), other(Buffer.from('nope'))]).toEqual([true, false]);
  });

  it('reveals nothing of the key when inspected', () => {
    expect(inspect(matches, { showHidden: true, depth: null })).not.toContain(KEY);
    expect(String(matches)).not.toContain(KEY);
  });
});

describe('presentedBytes', () => {
  it.each([
    ['an ASCII key', 'abc-123', [0x61, 0x62, 0x63, 0x2d, 0x31, 0x32, 0x33]],
    ['a Latin-1 decoded UTF-8 key (as Node gives it)', Buffer.from('é', 'utf8').toString('latin1'), [0xc3, 0xa9]],
    ['a Latin-1 character', '\u00ff', [0xff]],
    ['a string that never went through Latin-1 decoding', 'é🔑', [0xc3, 0xa9, 0xf0, 0x9f, 0x94, 0x91]],
  ])('gives the bytes of %s', (_name, key, bytes) => {
    expect([...presentedBytes(key)]).toEqual(bytes);
  });

  it('gives back the exact bytes of a UTF-8 key that Node decoded as Latin-1', () => {
    const key = 'ключ-🔑';
    expect(presentedBytes(Buffer.from(key, 'utf8').toString('latin1')).equals(Buffer.from(key, 'utf8'))).toBe(true);
  });

  it('does not fold characters above U+00FF onto their low byte (no "šţ" = "ab")', () => {
    const folded = String.fromCharCode(0x161, 0x162);
    expect(presentedBytes(folded).equals(Buffer.from('ab'))).toBe(false);
    expect(createKeyComparer(Buffer.from('ab'))(presentedBytes(folded))).toBe(false);
  });
});
