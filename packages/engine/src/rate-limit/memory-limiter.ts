import type { Limiter, Taken } from './limiter.js';

/** A {@link Limiter} in memory, answering in the same turn. */
export interface MemoryLimiter extends Limiter {
  consume(key: string, options?: { customDuration?: number }): Taken;
  reward(key: string): void;
  /** The windows kept now, ended ones not yet swept included. */
  readonly size: number;
}

/** A key's window: the points taken in it, and when it ends (ms, `Date.now`). */
interface Window {
  taken: number;
  readonly ends: number;
}

/** How many windows may be made before the ended ones are swept, at the least. */
const SWEEP_AFTER = 10_000;

/**
 * `rate_limit`'s memory store: fixed windows per key, as rate-limiter-flexible's memory limiter
 * counts them (a window starts with its key's first point and lasts `durationSeconds`; a point over
 * the limit is counted too), answered in the same turn. No promise and no timer per request, or
 * per key: ended windows are swept when as many new windows were made as there were windows at
 * the last sweep, so memory stays bounded by the keys of about two windows.
 */
export function createMemoryLimiter(
  points: number,
  durationSeconds: number,
  // Looked up on each call, as Date.now is (a test may replace it).
  now: () => number = () => Date.now(),
): MemoryLimiter {
  const windows = new Map<string, Window>();
  let made = 0;
  let sweepAt = SWEEP_AFTER;
  const sweep = (at: number) => {
    for (const [key, window] of windows) if (window.ends <= at) windows.delete(key);
    made = 0;
    sweepAt = Math.max(SWEEP_AFTER, windows.size);
  };
  const live = (key: string, at: number): Window | undefined => {
    const window = windows.get(key);
    return window !== undefined && window.ends > at ? window : undefined;
  };
  return {
    consume(key, options): Taken {
      const at = now();
      let window = live(key, at);
      if (window === undefined) {
        if (++made >= sweepAt) sweep(at);
        window = { taken: 0, ends: at + (options?.customDuration ?? durationSeconds) * 1000 };
        windows.set(key, window);
      }
      window.taken += 1;
      return {
        over: window.taken > points,
        remaining: Math.max(points - window.taken, 0),
        msBeforeNext: window.ends - at,
      };
    },
    reward(key) {
      const window = live(key, now());
      if (window !== undefined) window.taken -= 1;
    },
    get size() {
      return windows.size;
    },
  };
}
