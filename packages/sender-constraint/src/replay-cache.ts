import type { ReplayCache } from '@authlayer/core';

/** Bounds of the in-memory replay cache. */
export interface MemoryReplayCacheOptions {
  /** Most keys remembered at once; when every one is still unexpired, a new key is refused. Default 100000. */
  readonly maxEntries?: number;
  /** The clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
}

/** A {@link ReplayCache} that answers at once (see {@link createMemoryReplayCache}). */
export interface MemoryReplayCache extends ReplayCache {
  /** As `ReplayCache.firstSeen`, synchronously; throws {@link ReplayCacheFull} when full. */
  firstSeen(key: string, ttlMs: number): boolean;
}

/** Thrown when the cache is full of unexpired keys: the caller refuses the request (fail closed). */
export class ReplayCacheFull extends Error {
  override readonly name = 'ReplayCacheFull';
}

/**
 * A {@link ReplayCache} in this process's memory: each key lives `ttlMs`, expired keys are dropped
 * as new ones come (the oldest first), and at most `maxEntries` are kept. When all of them are
 * still unexpired a new key throws {@link ReplayCacheFull} rather than forget one that could be
 * replayed.
 *
 * @throws TypeError when `maxEntries` is not a positive integer
 */
export function createMemoryReplayCache(options: MemoryReplayCacheOptions = {}): MemoryReplayCache {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
    throw new TypeError('replay cache: maxEntries must be a positive integer');
  const now = options.now ?? Date.now;
  // Insertion order; entries' lifetimes differ a little (by `iat`), so expired ones are also swept when full.
  const expiries = new Map<string, number>();
  const sweep = (at: number, all: boolean) => {
    for (const [key, expiry] of expiries) {
      if (expiry > at && !all) return;
      if (expiry <= at) expiries.delete(key);
    }
  };
  return {
    firstSeen(key, ttlMs) {
      const at = now();
      const expiry = expiries.get(key);
      if (expiry !== undefined && expiry > at) return false;
      sweep(at, false);
      if (expiries.size >= maxEntries) sweep(at, true);
      if (expiries.size >= maxEntries) throw new ReplayCacheFull('the replay cache is full');
      expiries.delete(key);
      expiries.set(key, at + ttlMs);
      return true;
    },
  };
}
