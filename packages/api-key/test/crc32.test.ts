// The checksum must not need `zlib.crc32` (Node 20.15+ only): `engines` promises Node 20.0.
import { describe, expect, it, jest } from '@jest/globals';
import * as zlib from 'node:zlib';

describe('CRC-32 of a checksummed key', () => {
  it('works on a Node without zlib.crc32 (before 20.15), with the same checksum', async () => {
    // node:zlib as Node 20.0 has it: everything but crc32.
    jest.unstable_mockModule('node:zlib', () => {
      const { crc32: _absent, ...rest } = zlib as Record<string, unknown>;
      return { ...rest, default: rest };
    });
    const { checksumOf } = await import('../src/checksummed-key.js');
    // CRC-32 (IEEE) of 'sk_live_' and 32 × 'a' is 3 798 193 119 (zlib, Python's binascii.crc32).
    let expected = '';
    for (let rest = 3_798_193_119; expected.length < 6; rest = Math.floor(rest / 62)) {
      expected = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[rest % 62] + expected;
    }
    expect(checksumOf(`sk_live_${'a'.repeat(32)}`)).toBe(expected);
  });
});

describe('crc32', () => {
  it('gives the known check values', async () => {
    const { crc32 } = await import('../src/crc32.js');
    expect(crc32('')).toBe(0);
    expect(crc32('a')).toBe(0xe8b7be43);
    // The "check" value of CRC-32/ISO-HDLC in the CRC catalogue.
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('The quick brown fox jumps over the lazy dog')).toBe(0x414fa339);
    // Non-ASCII text is taken as its UTF-8 bytes, as zlib.crc32 takes a string.
    expect(crc32('é')).toBe(0x0e048d3e); // bytes C3 A9
  });

  it('equals zlib.crc32 where the Node has it', async () => {
    const { crc32 } = await import('../src/crc32.js');
    const native = (zlib as { crc32?: (data: string) => number }).crc32;
    if (native === undefined) return;
    const samples = ['', 'sk_live_', 'é€😀 mixed', '\x00\x7f\x80'];
    for (let i = 0; i < 200; i += 1) {
      samples.push(String.fromCharCode(...Array.from({ length: i }, (_, j) => (j * 7919 + i * 31) % 0x3000)));
    }
    for (const text of samples) expect(crc32(text)).toBe(native(text));
  });
});
