import { describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { createKeyTable, createKeyedDigest, presentedBytes, presentedSha256, sha256Of } from '../src/key-table.js';

const KEY = 'k3y-0123456789abcdef';
const MiB = 1024 * 1024;
const entry = <T>(key: string | Buffer, value: T) => ({ sha256: sha256Of(Buffer.from(key)), value });

describe('createKeyTable with one key', () => {
  const lookup = createKeyTable([entry(KEY, 'one')]);

  it('finds the expected key', () => {
    expect(lookup(Buffer.from(KEY))).toBe('one');
  });

  it.each([
    ['a wrong key of equal length', 'k3y-0123456789abcdeX'],
    ['a key differing in the first character', 'K3y-0123456789abcdef'],
    ['a prefix of the key', KEY.slice(0, -1)],
    ['an extension of the key', `${KEY}0`],
    ['the key in upper case', KEY.toUpperCase()],
    ['the key with a trailing NUL', `${KEY}\u0000`],
    ['an empty key', ''],
    ['the hex SHA-256 of the key (what hash_env holds)', createHash('sha256').update(KEY).digest('hex')],
  ])('refuses %s', (_name, presented) => {
    expect(lookup(Buffer.from(presented))).toBeUndefined();
  });

  it('takes keys of any length: a 1-byte and a 1 MiB wrong key both give undefined, without throwing', () => {
    expect(lookup(Buffer.from('x'))).toBeUndefined();
    expect(lookup(Buffer.alloc(MiB, 'k'))).toBeUndefined();
    expect(lookup(Buffer.concat([Buffer.from(KEY), Buffer.alloc(MiB)]))).toBeUndefined();
  });

  it('never matches an empty presented key, even against an empty expected key', () => {
    expect(createKeyTable([entry('', 'empty')])(Buffer.alloc(0))).toBeUndefined();
  });

  it('does not keep the expected digest: changing it afterwards changes nothing', () => {
    const sha256 = sha256Of(Buffer.from(KEY));
    const other = createKeyTable([{ sha256, value: 1 }]);
    sha256.fill(0);
    expect(other(Buffer.from(KEY))).toBe(1);
  });

  it('reveals nothing of the key or its digest when inspected', () => {
    const digest = sha256Of(Buffer.from(KEY));
    const shown = [inspect(lookup, { showHidden: true, depth: null }), String(lookup)].join('\n');
    for (const secret of [KEY, digest.toString('hex'), digest.toString('base64')]) expect(shown).not.toContain(secret);
  });
});

describe('createKeyTable with many keys', () => {
  const keys = Array.from({ length: 1000 }, (_, i) => `key-${i}-${'z'.repeat(i % 50)}`);
  const lookup = createKeyTable(keys.map((key, i) => entry(key, i)));

  it('finds each key, first, last and between, and gives what that key gives', () => {
    for (const i of [0, 1, 499, 998, 999]) expect(lookup(Buffer.from(keys[i]!))).toBe(i);
    expect(keys.every((key, i) => lookup(Buffer.from(key)) === i)).toBe(true);
  });

  it('refuses a key that is not in it', () => {
    expect(lookup(Buffer.from('key-1000-'))).toBeUndefined();
    expect(lookup(Buffer.from(`${keys[7]!}x`))).toBeUndefined();
  });

  it('refuses two entries holding the same key', () => {
    expect(() => createKeyTable([entry(KEY, 1), entry(KEY, 2)])).toThrow(RangeError);
  });

  it('keys its digests per table: two tables of the same keys agree on every answer', () => {
    const again = createKeyTable(keys.slice(0, 10).map((key, i) => entry(key, i)));
    expect(keys.slice(0, 10).map((key) => again(Buffer.from(key)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});

describe('createKeyTable lookups in any order', () => {
  it('gives the same answers whatever was looked up before, in this table or another', () => {
    const keys = ['first-key', 'second-key', 'third-key'];
    const one = createKeyTable(keys.map((key, i) => entry(key, i)));
    const two = createKeyTable(keys.map((key, i) => entry(key, `two-${i}`)));
    const asked = ['third-key', 'nope', 'first-key', 'second-key', 'first-key', 'x'.repeat(100), 'third-key'];
    const answers = asked.map((key) => [one(Buffer.from(key)), two(Buffer.from(key))]);
    expect(answers).toEqual([
      [2, 'two-2'],
      [undefined, undefined],
      [0, 'two-0'],
      [1, 'two-1'],
      [0, 'two-0'],
      [undefined, undefined],
      [2, 'two-2'],
    ]);
  });

  it('uses every bit of the digest: 256 one-bit changes give 256 other slots', () => {
    const digest = sha256Of(Buffer.from(KEY));
    const lookup = createKeyTable([{ sha256: digest, value: 'one' }]);
    const keyed = createKeyedDigest(randomBytes(32));
    const slots = new Set([keyed(digest)]);
    for (let bit = 0; bit < 256; bit += 1) {
      const flipped = Buffer.from(digest);
      flipped[bit >> 3]! ^= 1 << (bit & 7);
      slots.add(keyed(flipped));
    }
    expect(slots.size).toBe(257);
    expect(lookup(Buffer.from(KEY))).toBe('one');
  });
});

describe("createKeyTable with a key given as the header's string", () => {
  const utf8 = 'ключ-🔑';
  const lookup = createKeyTable([entry(KEY, 'ascii'), entry(Buffer.from(utf8, 'utf8'), 'utf8'), entry('ab', 'ab')]);

  it.each([
    ['an ASCII key', KEY, 'ascii'],
    ['a UTF-8 key as Node decodes it (Latin-1)', Buffer.from(utf8, 'utf8').toString('latin1'), 'utf8'],
    ['a UTF-8 key in a hand-made request (characters above U+00FF)', utf8, 'utf8'],
    ['a wrong key', `${KEY}x`, undefined],
    ['an empty key', '', undefined],
    ['"šţ", whose low bytes are "ab"', '\u0161\u0162', undefined],
  ])('%s', (_name, presented, expected) => {
    expect(lookup(presented)).toBe(expected);
  });

  it.each([KEY, '', '\u00ff\u00e9', Buffer.from('é', 'utf8').toString('latin1'), 'é🔑', '\u0000\u007f', '\u0080'])(
    'hashes %j exactly as sha256Of(presentedBytes(key))',
    (key) => {
      expect(presentedSha256(key).equals(sha256Of(presentedBytes(key)))).toBe(true);
    },
  );
});

describe('createKeyedDigest: SHA-256(k ‖ SHA-256(key))', () => {
  const k = () => Buffer.alloc(32, 7);
  const digest = sha256Of(Buffer.from(KEY));

  it('is the SHA-256 of the 32-byte secret followed by the 32-byte digest, in base64', () => {
    const expected = createHash('sha256')
      .update(Buffer.concat([k(), digest]))
      .digest('base64');
    expect(createKeyedDigest(k())(digest)).toBe(expected);
    expect(expected).toHaveLength(44);
  });

  it('depends on the secret (two secrets, two answers) and is not the bare digest', () => {
    const a = createKeyedDigest(randomBytes(32));
    const b = createKeyedDigest(randomBytes(32));
    expect(a(digest)).not.toBe(b(digest));
    expect(a(digest)).not.toBe(digest.toString('base64'));
  });

  it('answers each digest alone: a call leaves nothing behind for the next', () => {
    const keyed = createKeyedDigest(k());
    const other = sha256Of(Buffer.from('other'));
    const first = keyed(digest);
    keyed(other);
    expect(keyed(digest)).toBe(first);
    expect(keyed(other)).not.toBe(first);
  });

  it('keeps its own copy of the secret and zeroes the buffer it was given', () => {
    const given = k();
    const keyed = createKeyedDigest(given);
    expect(given.equals(Buffer.alloc(32))).toBe(true);
    expect(keyed(digest)).toBe(createKeyedDigest(k())(digest));
  });

  it.each([
    ['a 31-byte secret', Buffer.alloc(31), digest],
    ['a 33-byte secret', Buffer.alloc(33), digest],
    ['a 31-byte digest', Buffer.alloc(32), Buffer.alloc(31)],
    ['a 64-byte digest (the length must never vary)', Buffer.alloc(32), Buffer.alloc(64)],
  ])('throws RangeError for %s', (_name, secret, sha256) => {
    expect(() => createKeyedDigest(secret)(sha256)).toThrow(RangeError);
  });

  it('reveals neither the secret nor a digest when inspected', () => {
    const secret = randomBytes(32);
    const keyed = createKeyedDigest(Buffer.from(secret));
    keyed(digest);
    const shown = [inspect(keyed, { showHidden: true, depth: null }), String(keyed)].join('\n');
    for (const hidden of [secret.toString('hex'), secret.toString('base64'), digest.toString('hex')])
      expect(shown).not.toContain(hidden);
  });
});

describe('sha256Of', () => {
  it('is the SHA-256 of the bytes, as `sha256sum` prints it in hex', () => {
    expect(sha256Of(Buffer.from('abc')).toString('hex')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
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
    expect(createKeyTable([entry('ab', 1)])(presentedBytes(folded))).toBeUndefined();
  });
});

describe('sha256Of', () => {
  it('is SHA-256 (one call where Node.js has crypto.hash)', () => {
    expect(sha256Of(Buffer.from(KEY)).toString('hex')).toBe(createHash('sha256').update(KEY).digest('hex'));
    expect(sha256Of(Buffer.alloc(0)).toString('hex')).toBe(createHash('sha256').digest('hex'));
  });
});
