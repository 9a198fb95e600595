import { describe, expect, it } from '@jest/globals';
import { createMemoryReplayCache, ReplayCacheFull } from '../src/index.js';

describe('createMemoryReplayCache', () => {
  it('answers true once per key while it lives, and again once it expired', () => {
    let now = 1000;
    const cache = createMemoryReplayCache({ now: () => now });
    expect(cache.firstSeen('a', 100)).toBe(true);
    expect(cache.firstSeen('a', 100)).toBe(false);
    now = 1099;
    expect(cache.firstSeen('a', 100)).toBe(false);
    now = 1100;
    expect(cache.firstSeen('a', 100)).toBe(true);
  });

  it('refuses a new key when full of unexpired keys (fail closed), and makes room from expired ones', () => {
    let now = 0;
    const cache = createMemoryReplayCache({ maxEntries: 2, now: () => now });
    expect(cache.firstSeen('a', 50)).toBe(true);
    expect(cache.firstSeen('b', 10)).toBe(true);
    expect(() => cache.firstSeen('c', 10)).toThrow(ReplayCacheFull);
    now = 10;
    // `b` expired though `a`, before it, did not: the full sweep finds it.
    expect(cache.firstSeen('c', 10)).toBe(true);
    now = 60;
    expect(cache.firstSeen('d', 10)).toBe(true);
    expect(cache.firstSeen('e', 10)).toBe(true);
  });

  it('refuses a bound that is not a positive integer; uses Date.now by default', () => {
    expect(() => createMemoryReplayCache({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => createMemoryReplayCache({ maxEntries: 1.5 })).toThrow(TypeError);
    expect(createMemoryReplayCache().firstSeen('x', 1000)).toBe(true);
  });
});
