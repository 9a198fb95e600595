import { timeFailure, type TokenTimes } from './verify/validate-claims.js';

/**
 * Bounds of the cache of verified tokens. Not part of the config file: a library user may pass
 * them as `deps.tokenCache` to `createJwtHandler`.
 */
export interface TokenCacheOptions {
  /**
   * How many verified tokens are remembered; the least recently used goes first. Default 1024;
   * `0` turns the cache off.
   */
  readonly maxEntries?: number;
  /**
   * How long after its verification a token is served from the cache, whatever its `exp`.
   * Bounds how long a key removed from a JWKS (or a changed key) is still honoured through the
   * cache. Default 300000 ms (5 minutes).
   */
  readonly maxAgeMs?: number;
}

/**
 * The defaults of {@link TokenCacheOptions}, and `maxTokenChars`: the characters of all cached
 * tokens together stay under 1 MiB, so a flood of large (up to 8 KiB) distinct tokens holds at
 * most 128 of them.
 */
export const TOKEN_CACHE_DEFAULTS = Object.freeze({ maxEntries: 1024, maxAgeMs: 300_000, maxTokenChars: 1024 * 1024 });

// ECMA-262 §21.4.1.1: the largest time a Date holds. jose refuses every token at a clock beyond
// it (or NaN), so the cache serves none either.
const MAX_DATE_MS = 8.64e15;

/** How many of a token's last characters find its entry (the doorkeeper's fingerprint reads as many). */
const KEY_CHARS = 16;
const keyOf = (token: string): string => (token.length > KEY_CHARS ? token.slice(-KEY_CHARS) : token);

/**
 * A bounded LRU of values derived from verified tokens. An entry is found by the token's last
 * {@link KEY_CHARS} characters, the end of its signature (only verified JWTs are stored, and a
 * signature's end is random), and served only when its whole token equals the one asked: a Map
 * hashes a string key character by character, and the token is a new string on every request,
 * while comparing two strings is a memory compare.
 */
export interface TokenCache<V> {
  /** The value of `token` if it was verified and is still valid at `nowMs`; else `undefined`. */
  get(token: string, nowMs: number): V | undefined;
  /** Remembers `value` for `token`, verified at `nowMs`, with the token's time claims. */
  set(token: string, value: V, times: TokenTimes, nowMs: number): void;
  /** How many tokens are remembered. */
  readonly size: number;
}

/** The token's times are held inline: one object per entry. */
interface Entry<V> extends TokenTimes {
  readonly token: string;
  readonly value: V;
  readonly verifiedAtMs: number;
  /** The count of insertions when it was last put at the end of the order. */
  at: number;
}

/**
 * Creates the cache of one handler. An entry is served only while a fresh verification would
 * also accept the token at that instant: `nbf`, `exp` and `iat` are checked again on every hit
 * with the same expressions and leeway as the full path ({@link timeFailure}), and never more
 * than `maxAgeMs` after the token was verified. An entry that fails these checks is dropped.
 * Only successes are ever stored, and a token is stored on its second verification within
 * `maxEntries` verifications, not its first (see {@link createDoorkeeper}).
 *
 * @param leewaySeconds - `auth.jwt.leeway_seconds`.
 * @throws TypeError when a bound is not a non-negative integer.
 */
export function createTokenCache<V>(leewaySeconds: number, options: TokenCacheOptions = {}): TokenCache<V> {
  const maxEntries = bound(options.maxEntries, TOKEN_CACHE_DEFAULTS.maxEntries, 'maxEntries');
  const maxAgeMs = bound(options.maxAgeMs, TOKEN_CACHE_DEFAULTS.maxAgeMs, 'maxAgeMs');
  // A Map iterates in insertion order: its first key is the one least recently put at the end.
  const entries = new Map<string, Entry<V>>();
  const seenBefore = createDoorkeeper(Math.max(1, maxEntries));
  let chars = 0;
  let insertions = 0;
  const drop = (key: string, entry: Entry<V>): void => {
    entries.delete(key);
    chars -= entry.token.length;
  };

  return {
    get(token, nowMs) {
      const key = keyOf(token);
      const entry = entries.get(key);
      if (entry === undefined || entry.token !== token) return undefined;
      const fresh =
        Math.abs(nowMs) <= MAX_DATE_MS &&
        nowMs - entry.verifiedAtMs < maxAgeMs &&
        timeFailure(entry, Math.floor(nowMs / 1000), leewaySeconds) === null;
      if (!fresh) {
        drop(key, entry);
        return undefined;
      }
      // Moved to the end only when it has aged past half the cache: an entry is dropped once
      // maxEntries others came after it, so one hit in the last half is never dropped, and a token
      // reused on every request costs no Map delete and insert per hit.
      if (insertions - entry.at >= maxEntries / 2) {
        entries.delete(key);
        entry.at = ++insertions;
        entries.set(key, entry);
      }
      return entry.value;
    },
    set(token, value, times, nowMs) {
      if (maxEntries === 0 || token.length > TOKEN_CACHE_DEFAULTS.maxTokenChars) return;
      const key = keyOf(token);
      const held = entries.get(key);
      // A token verified again replaces its entry; a new one must pass the doorkeeper, and then
      // takes the place of another token that ends alike.
      if (held?.token !== token && !seenBefore(token)) return;
      if (held !== undefined) drop(key, held);
      entries.set(key, {
        token,
        value,
        exp: times.exp,
        nbf: times.nbf,
        iat: times.iat,
        verifiedAtMs: nowMs,
        at: ++insertions,
      });
      chars += token.length;
      for (const [oldest, entry] of entries) {
        if (entries.size <= maxEntries && chars <= TOKEN_CACHE_DEFAULTS.maxTokenChars) break;
        drop(oldest, entry);
      }
    },
    get size() {
      return entries.size;
    },
  };
}

/**
 * Admission, a "doorkeeper" as in TinyLFU: answers whether `token` was also verified among the
 * last `window` verifications, and remembers this one. Two tables of `8 × window` slots
 * (fingerprint, sequence number; 64 KiB for 1024), no allocation; with 1024 tokens in turn,
 * about one in nine shares a slot with another and waits for a turn without it. A token admitted this way would have been
 * a hit in an LRU of `window` entries, so a round-robin of more distinct tokens than the cache
 * holds is never admitted: it pays full verification, as it would with a plain LRU, and does
 * not churn the cache (each entry would outlive the young generation of the heap and die in the
 * old one, which costs more than the lookup saves). A client that reuses its token gets it
 * cached on its second verification. The tables only decide what is cached, never whether a
 * token is valid, so a fingerprint collision is harmless.
 */
function createDoorkeeper(window: number): (token: string) => boolean {
  const size = 2 ** Math.ceil(Math.log2(8 * window));
  const prints = new Uint32Array(size);
  const sequence = new Uint32Array(size);
  const mask = size - 1;
  let now = 0;
  return (token) => {
    const print = fingerprint(token);
    const slot = print & mask;
    now = (now + 1) >>> 0;
    // Unsigned 32-bit distance, so the counter may wrap.
    const seen = prints[slot] === print && (now - (sequence[slot] as number)) >>> 0 <= window;
    prints[slot] = print;
    sequence[slot] = now;
    return seen;
  };
}

/** FNV-1a over the last KEY_CHARS characters, the end of the signature: random for every real token. */
function fingerprint(token: string): number {
  let hash = 0x811c9dc5;
  for (let i = Math.max(0, token.length - KEY_CHARS); i < token.length; i += 1)
    hash = Math.imul(hash ^ token.charCodeAt(i), 0x01000193);
  // 0 marks an empty slot; the top bit never chooses the slot, so it is set to keep prints non-zero.
  return (hash | 0x80000000) >>> 0;
}

function bound(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new TypeError(`tokenCache.${name} must be a non-negative integer`);
  return value;
}
