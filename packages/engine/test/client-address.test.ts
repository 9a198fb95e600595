import { describe, expect, it } from '@jest/globals';
import { clientAddress, normaliseAddress } from '../src/rate-limit/client-address.js';

const peer = (remoteAddress: string, forwarded?: string) => ({
  headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
  socket: { remoteAddress },
});

describe('clientAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.0.0.7', '10.0.0.7'],
    ['10.0.0.7:5555', '10.0.0.7'],
    ['[2001:db8:1:2:3:4:5:6]:443', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002::9', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    // A bracket never closed: the address inside it still counts.
    ['[::1', '0:0:0:0::/64'],
    // An embedded IPv4 tail is two groups: the zeros of `::` are counted without it.
    ['1:2::3:4:5:1.2.3.4', '1:2:0:3::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['not an address', null],
  ])('normalises %s as %s, the same on every call', (raw, expected) => {
    // The second and third answers come from the memo: they must equal the first.
    expect([normaliseAddress(raw), normaliseAddress(raw), normaliseAddress(raw)]).toEqual([
      expected,
      expected,
      expected,
    ]);
  });

  it('answers every address right after the memo filled up and was emptied', () => {
    const addresses = Array.from({ length: 3000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    for (const address of addresses) expect(normaliseAddress(address)).toBe(address);
    for (const address of addresses) expect(normaliseAddress(`::ffff:${address}`)).toBe(address);
    expect(normaliseAddress('999.1.1.1')).toBeNull();
  });

  it('gives each peer its own address when peers take turns, and a peer without one "unknown"', () => {
    const turns = ['10.0.0.1', '::ffff:10.0.0.1', '10.0.0.2', '', '10.0.0.2', 'not an address', '10.0.0.1'];
    expect(turns.map((raw) => clientAddress(peer(raw), false))).toEqual([
      '10.0.0.1',
      '10.0.0.1',
      '10.0.0.2',
      'unknown',
      '10.0.0.2',
      'unknown',
      '10.0.0.1',
    ]);
    expect(clientAddress({ headers: {} }, false)).toBe('unknown');
  });

  it('reads the entry the trusted proxy wrote, not one the client chose', () => {
    expect(clientAddress(peer('10.0.0.1', '203.0.113.9, 198.51.100.7'), 1)).toBe('198.51.100.7');
    expect(clientAddress(peer('10.0.0.1', '203.0.113.9, 198.51.100.7'), false)).toBe('10.0.0.1');
    expect(clientAddress(peer('10.0.0.1', 'garbage'), 1)).toBe('10.0.0.1');
  });

  it('trust_proxy true is one proxy; a header repeated reads as one list', () => {
    expect(clientAddress(peer('10.0.0.1', '203.0.113.9, 198.51.100.7'), true)).toBe('198.51.100.7');
    const repeated = {
      headers: { 'x-forwarded-for': ['203.0.113.9', '198.51.100.7, 192.0.2.4'] },
      socket: { remoteAddress: '10.0.0.1' },
    };
    expect(clientAddress(repeated, 2)).toBe('198.51.100.7');
  });

  it('behind a trusted proxy, a request without X-Forwarded-For (or an empty one) counts as the peer', () => {
    expect(clientAddress(peer('10.0.0.1'), 1)).toBe('10.0.0.1');
    expect(clientAddress(peer('10.0.0.1', ' , ,'), 1)).toBe('10.0.0.1');
    // Fewer entries than trusted proxies: the leftmost is the client.
    expect(clientAddress(peer('10.0.0.1', '203.0.113.9'), 3)).toBe('203.0.113.9');
  });
});
