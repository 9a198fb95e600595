/** The time to live of a revocation: 24 hours unless told otherwise, at most 30 days. */
export const REVOCATION_TTL = Object.freeze({ defaultSeconds: 86_400, maxSeconds: 2_592_000 });

/** One entry of the revocation list, as `auth.revocations()` and `--revocations` list it. */
export interface Revocation {
  /** `jti:<id>` (one token) or `sub:<id>` (every credential of a subject, or an API key client). */
  readonly entry: string;
  /** When it ends, as an ISO 8601 time (UTC). */
  readonly expiresAt: string;
}

/** Options of `auth.revoke`. */
export interface RevokeOptions {
  /** How long the entry lasts, in seconds. Default 86400 (24 h), at most 2592000 (30 days). */
  readonly ttlSeconds?: number;
}

// Any id without control characters: ids come from tokens and configs, and are shown in logs.
const ENTRY = /^(jti|sub):[^\p{Cc}]{1,1024}$/u;

/**
 * The entry, checked: `jti:` or `sub:` and an id of 1 to 1024 characters, no control characters.
 *
 * @throws TypeError saying what is wrong (never repeating the value)
 */
export function checkRevocationEntry(entry: unknown): string {
  if (typeof entry !== 'string' || !ENTRY.test(entry)) {
    throw new TypeError(
      'a revocation entry is jti:<token id> or sub:<subject or API key client>, the id 1 to 1024 characters without control characters',
    );
  }
  return entry;
}

/**
 * The time to live in seconds: the default when not given, else a whole number of seconds.
 *
 * @throws TypeError when it is not an integer from 1 to 2592000
 */
export function checkRevocationTtl(ttlSeconds: unknown): number {
  if (ttlSeconds === undefined) return REVOCATION_TTL.defaultSeconds;
  if (
    !Number.isSafeInteger(ttlSeconds) ||
    (ttlSeconds as number) < 1 ||
    (ttlSeconds as number) > REVOCATION_TTL.maxSeconds
  )
    throw new TypeError(
      `a revocation's ttl is a whole number of seconds from 1 to ${REVOCATION_TTL.maxSeconds} (30 days)`,
    );
  return ttlSeconds as number;
}

// Here, not beside its Redis implementation: public types must not import ioredis (an optional peer).
/** What is done to the list in Redis; the same for the CLI and for a replica. */
export interface RevocationCommands {
  /** Adds or replaces the entry (the last write wins), and tells every replica. */
  revoke(entry: string, ttlSeconds: number): Promise<Revocation>;
  /** Removes the entry and tells every replica; `false` when it was not there. */
  unrevoke(entry: string): Promise<boolean>;
  /** The entries in force, soonest to end first. */
  list(): Promise<Revocation[]>;
  /**
   * `true` the first time `key` is seen within `ttlMs` on this Redis (SET NX PX: atomic, so of
   * two replicas seeing it at once exactly one gets `true`), `false` after. For replay caches
   * (a DPoP proof's `jti`) shared by every replica. Rejects when Redis does not answer: the caller
   * decides what that means (fail closed, or a local cache).
   */
  firstSeen(key: string, ttlMs: number): Promise<boolean>;
}
