import { createHash } from 'node:crypto';
import type { AuthContext } from '@authlayer/core';

/** Bounds of the cache of active answers (not in the config file). */
export interface AnswerCacheOptions {
  /** Most answers kept; the oldest is dropped first. Default 10000. */
  readonly maxEntries?: number;
}

/** The defaults of {@link AnswerCacheOptions}. */
export const ANSWER_CACHE_DEFAULTS = Object.freeze({ maxEntries: 10_000 });

/** What is known of tokens (the contexts of active answers), keyed by a digest of the token (never the token). */
export interface AnswerCache<V = AuthContext> {
  get(key: string, nowMs: number): V | undefined;
  /** Keeps `context` until `cache_seconds` from now or `expMs`, whichever comes first. */
  set(key: string, context: V, expMs: number | null, nowMs: number): void;
  readonly size: number;
}

/** The cache key of a token: its SHA-256, so a heap dump of the cache holds no token. */
export function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/**
 * A bounded cache of active answers: an entry lives `cacheSeconds`, never past the answer's
 * `exp`; at most `maxEntries` entries, the oldest dropped first. `cacheSeconds` 0 keeps nothing.
 *
 * @throws TypeError when `maxEntries` is not a positive integer.
 */
export function createAnswerCache<V = AuthContext>(
  cacheSeconds: number,
  options: AnswerCacheOptions = {},
): AnswerCache<V> {
  const maxEntries = options.maxEntries ?? ANSWER_CACHE_DEFAULTS.maxEntries;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
    throw new TypeError('answer cache: maxEntries must be a positive integer');
  const entries = new Map<string, { readonly context: V; readonly until: number }>();
  return {
    get(key, nowMs) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (nowMs < entry.until) return entry.context;
      entries.delete(key);
      return undefined;
    },
    set(key, context, expMs, nowMs) {
      const until = Math.min(nowMs + cacheSeconds * 1000, expMs ?? Infinity);
      if (until <= nowMs) return;
      entries.delete(key);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { context, until });
    },
    get size() {
      return entries.size;
    },
  };
}
