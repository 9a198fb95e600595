import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { REVOCATIONS_CHANNEL, REVOCATIONS_KEY } from './revocation-commands.js';

/**
 * The store's generation marker: a random id, written once by the first replica that finds it
 * missing. Redis loses it with the list (a restart without persistence, FLUSHALL, a failover to a
 * replica that never had it), so a missing or different marker tells a replica that the store is
 * not the one whose list it holds.
 */
export const GENERATION_KEY = 'authlayer:revocations:generation';

/** Published after a write-back: every replica loads the list again (one that loaded meanwhile too). */
export const RELOAD_MESSAGE = '{"reload":true}';

/** Entries per ZADD of a write-back: a long list goes in a few commands, none of them huge. */
const CHUNK = 1000;

/**
 * The store's marker, made when missing: SET NX then GET in one transaction, so of replicas
 * finding it missing at once the first one's id is the one every replica reads.
 */
export async function currentGeneration(client: Redis): Promise<string> {
  const found = await client.get(GENERATION_KEY);
  if (found !== null) return found;
  const answers = (await client.multi().set(GENERATION_KEY, randomUUID(), 'NX').get(GENERATION_KEY).exec()) ?? [];
  const [error, value] = answers[1] ?? [new Error('no answer'), null];
  if (error !== null || typeof value !== 'string') throw error ?? new Error('the generation marker was not read');
  return value;
}

/**
 * Gives a store that lost its data back this replica's entries in force at `nowMs`, then tells
 * every replica to load the list again. ZADD GT (Redis 6.2 or later) keeps whichever end is later,
 * so every replica writing back the same list, in any order and as often as it likes, leaves one
 * list; entries past their end are not in `entries` (the caller filters), and are pruned here.
 */
export async function writeBack(client: Redis, entries: readonly [string, number][], nowMs: number): Promise<void> {
  const multi = client.multi();
  for (let i = 0; i < entries.length; i += CHUNK) {
    const members = entries.slice(i, i + CHUNK).flatMap(([entry, until]) => [until, entry]);
    multi.zadd(REVOCATIONS_KEY, 'GT', ...members);
  }
  multi.zremrangebyscore(REVOCATIONS_KEY, '-inf', nowMs).publish(REVOCATIONS_CHANNEL, RELOAD_MESSAGE);
  for (const [error] of (await multi.exec()) ?? []) if (error !== null) throw error;
}
