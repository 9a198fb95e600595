import { verifiedClaims, type AuthContext } from '@authlayer/core';

/**
 * One process's copy of the revocation list: entry → end (milliseconds since the epoch). Asked on
 * every request, so it answers from memory; changes come from the store's messages, and a full
 * load replaces it.
 */
export interface RevocationList {
  /**
   * True when the context's credential is revoked now: `sub:<userId>`, or, for a token, `jti:<jti>`
   * or `sub:<sub claim>` (the same as userId unless the claims mapping reads another claim).
   */
  isRevoked(context: AuthContext, nowMs: number): boolean;
  /** A change: the entry revoked until `until`, or removed (`null`). */
  apply(entry: string, until: number | null): void;
  /** A full load starts: the changes applied from now on are kept, to replay over its snapshot. */
  beginLoad(): void;
  /**
   * The load's snapshot replaces the list, and every change told since `beginLoad` is applied on top
   * of it again: a change is an assignment of one entry, so replaying one the snapshot already holds
   * changes nothing, and one it missed is not lost.
   */
  finishLoad(snapshot: Iterable<readonly [string, number]>): void;
  /** The load failed: the list stays as it is. */
  abortLoad(): void;
  /** The entries that have not ended at `nowMs`, with their ends (what a store that lost its data is given back). */
  inForce(nowMs: number): [string, number][];
  readonly size: number;
}

export function createRevocationList(): RevocationList {
  let entries = new Map<string, number>();
  let told: [string, number | null][] | null = null;
  const assign = (map: Map<string, number>, entry: string, until: number | null) =>
    until === null ? map.delete(entry) : map.set(entry, until);
  const active = (entry: string, nowMs: number): boolean => {
    const until = entries.get(entry);
    if (until === undefined) return false;
    if (nowMs < until) return true;
    entries.delete(entry);
    return false;
  };
  return {
    isRevoked(context, nowMs) {
      // The common case, an empty list, costs one comparison.
      if (entries.size === 0) return false;
      if (context.userId !== null && active(`sub:${context.userId}`, nowMs)) return true;
      const claims = verifiedClaims(context);
      if (claims === null) return false;
      if (typeof claims.jti === 'string' && active(`jti:${claims.jti}`, nowMs)) return true;
      return typeof claims.sub === 'string' && claims.sub !== context.userId && active(`sub:${claims.sub}`, nowMs);
    },
    apply(entry, until) {
      assign(entries, entry, until);
      told?.push([entry, until]);
    },
    beginLoad() {
      told = [];
    },
    finishLoad(snapshot) {
      const next = new Map(snapshot);
      for (const [entry, until] of told ?? []) assign(next, entry, until);
      entries = next;
      told = null;
    },
    abortLoad() {
      told = null;
    },
    inForce: (nowMs) => [...entries].filter(([, until]) => nowMs < until),
    get size() {
      return entries.size;
    },
  };
}
