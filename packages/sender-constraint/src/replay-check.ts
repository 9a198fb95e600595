import type { Logger, ReplayCache } from '@authlayer/core';
import type { MemoryReplayCache } from './replay-cache.js';

/** What a proof's replay check answers: seen for the first time, a replay, or no room to remember it. */
export type ReplayVerdict = 'first' | 'replay' | 'full';

/**
 * The replay decision of RFC 9449 §11.1 for a proof's key digest: this process's own cache first
 * (full of proofs still in their window → `full`, and the proof is refused: fail closed, one
 * warning), then the shared one when given (another replica saw it → `replay`). While the shared
 * cache fails, the process's own answer stands: one warning, and one line when it answers again.
 */
export function createReplayCheck(
  local: MemoryReplayCache,
  shared: ReplayCache | null,
  logger: Logger,
): (key: string, ttlMs: number) => Promise<ReplayVerdict> {
  let localFull = false;
  let sharedFailing = false;

  async function sharedFirstSeen(cache: ReplayCache, key: string, ttlMs: number): Promise<boolean> {
    try {
      const first = await cache.firstSeen(key, ttlMs);
      if (sharedFailing) logger.info('DPoP replay cache answers again; proofs are checked across replicas');
      sharedFailing = false;
      return first === true;
    } catch (error) {
      if (!sharedFailing)
        logger.warn(
          `DPoP shared replay cache failed (${error instanceof Error ? error.name : typeof error}); each process checks its own proofs until it answers`,
        );
      sharedFailing = true;
      return true;
    }
  }

  return async (key, ttlMs) => {
    let first: boolean;
    try {
      first = local.firstSeen(key, ttlMs);
      localFull = false;
    } catch {
      if (!localFull) logger.warn('DPoP replay cache is full; new proofs are refused until entries expire');
      localFull = true;
      return 'full';
    }
    if (first && shared !== null) first = await sharedFirstSeen(shared, key, ttlMs);
    return first ? 'first' : 'replay';
  };
}
