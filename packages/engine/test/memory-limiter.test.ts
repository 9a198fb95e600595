import { describe, expect, it } from '@jest/globals';
import { createMemoryLimiter } from '../src/rate-limit/memory-limiter.js';

// rate_limit's memory store: fixed windows, answered in the same turn, ended windows swept.

describe('createMemoryLimiter', () => {
  it('counts fixed windows from a key’s first point; a point over the limit is counted too', () => {
    let now = 1_000;
    const limiter = createMemoryLimiter(2, 60, () => now);
    expect(limiter.consume('a')).toEqual({ over: false, remaining: 1, msBeforeNext: 60_000 });
    now += 10_000;
    expect(limiter.consume('a')).toEqual({ over: false, remaining: 0, msBeforeNext: 50_000 });
    expect(limiter.consume('a')).toEqual({ over: true, remaining: 0, msBeforeNext: 50_000 });
    limiter.reward('a');
    // The over point and the reward cancel out: still over.
    expect(limiter.consume('a')).toMatchObject({ over: true });
    expect(limiter.consume('b')).toMatchObject({ over: false, remaining: 1 });
    now = 61_000; // a's window ended at 61 000: a new one starts
    expect(limiter.consume('a')).toEqual({ over: false, remaining: 1, msBeforeNext: 60_000 });
  });

  it('takes a key’s own window length (a quota’s period) and rewards nothing after a window ended', () => {
    let now = 0;
    const limiter = createMemoryLimiter(1, 60, () => now);
    expect(limiter.consume('q', { customDuration: 3600 })).toEqual({
      over: false,
      remaining: 0,
      msBeforeNext: 3_600_000,
    });
    now = 3_600_000;
    limiter.reward('q');
    expect(limiter.consume('q')).toEqual({ over: false, remaining: 0, msBeforeNext: 60_000 });
  });

  it('keeps the windows of about two sweeps: ended ones go as new ones come', () => {
    let now = 0;
    const limiter = createMemoryLimiter(5, 1, () => now);
    const sizes: number[] = [];
    for (let second = 0; second < 10; second += 1) {
      now = second * 1000;
      for (let i = 0; i < 6_000; i += 1) limiter.consume(`k-${second}-${i}`);
      sizes.push(limiter.size);
    }
    // 60 000 keys made, never more than the keys of the last sweep and those made since.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2 * 10_000);
    expect(sizes.at(-1)).toBeGreaterThanOrEqual(6_000);
    now = 10_000;
    expect(limiter.consume('k-9-0')).toMatchObject({ over: false, remaining: 4 });
  });
});
