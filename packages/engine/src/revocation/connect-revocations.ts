import type { RevocationConfig } from '@authlayer/core';
import { importWithPeers } from '../optional-peers.js';
import type { RevocationCommands } from './revocation-entry.js';

/**
 * The revocation list in Redis, for a tool that changes or lists it (see {@link connectRevocations}):
 * `revoke(entry, ttlSeconds)` takes an entry and a ttl already checked (`checkRevocationEntry`,
 * `checkRevocationTtl`); `firstSeen(key, ttlMs)` is the replay-cache primitive on the same Redis.
 */
export interface RevocationAdmin extends RevocationCommands {
  /** Closes the connection (the process can exit then). */
  close(): void;
}

/**
 * Connects to `revocation.store` to change or list the revocation list without building the
 * middleware (no key material needed): the reference service's `--revoke`, `--unrevoke` and
 * `--revocations` use it. Every replica that follows the list is told of a change within a second.
 * ioredis, an optional peer, is imported only here.
 *
 * @throws ConfigError when ioredis is not installed; Error when Redis cannot be reached
 * @example
 * const admin = await connectRevocations(config.revocation);
 * try { await admin.revoke(checkRevocationEntry('sub:ada'), 3600); } finally { admin.close(); }
 */
export async function connectRevocations(
  config: RevocationConfig,
  now: () => number = Date.now,
): Promise<RevocationAdmin> {
  const { openRevocationCommands } = await importWithPeers(
    () => import('./revocation-admin.js'),
    ['ioredis'],
    'revocation.store',
  );
  return openRevocationCommands(config.store, now);
}
