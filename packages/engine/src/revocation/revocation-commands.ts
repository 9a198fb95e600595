import type { Redis } from 'ioredis';
import type { RevocationCommands } from './revocation-entry.js';

export type { RevocationCommands } from './revocation-entry.js';

/** The sorted set of the list: member = entry, score = its end in milliseconds since the epoch. */
export const REVOCATIONS_KEY = 'authlayer:revocations';
/** Where every change is published, for the replicas' copies. */
export const REVOCATIONS_CHANNEL = 'authlayer:revocations';
const SEEN_PREFIX = 'authlayer:seen:';

/** A message on the channel: the entry revoked until `until`, or removed (`until: null`). */
export interface RevocationChange {
  readonly entry: string;
  readonly until: number | null;
}

/**
 * A change refused before anything was sent: Redis is down (or known not to answer), so the list
 * in Redis is as it was. Told apart from a command sent and never answered, whose outcome is unknown.
 */
export class ChangeNotSent extends Error {
  override readonly name = 'ChangeNotSent';
  constructor() {
    super('revocation.store: Redis is unreachable; the change was not applied (nothing was sent)');
  }
}

/** True for a failure that proves nothing was sent (ours, or ioredis refusing to queue a command). */
export function isChangeNotSent(error: unknown): boolean {
  return (
    error instanceof Error && (error.name === 'ChangeNotSent' || error.message.startsWith("Stream isn't writeable"))
  );
}

/**
 * The list as one sorted set: a full load is one ZRANGEBYSCORE (an atomic snapshot, whatever else
 * the database holds), and an entry's end is its score, so listing and expiry need no SCAN and no
 * key per entry. Ended entries are pruned with each write; until then the score says they ended.
 * A change is sent only while `isUp()`: else it is refused with {@link ChangeNotSent}.
 */
export function revocationCommands(
  client: Redis,
  now: () => number,
  isUp: () => boolean = () => client.status === 'ready',
): RevocationCommands {
  const publish = (change: RevocationChange) => JSON.stringify(change);
  const send = () => {
    if (!isUp()) throw new ChangeNotSent();
  };
  return {
    async revoke(entry, ttlSeconds) {
      send();
      const at = now();
      const until = at + ttlSeconds * 1000;
      await run(
        client
          .multi()
          .zadd(REVOCATIONS_KEY, until, entry)
          .zremrangebyscore(REVOCATIONS_KEY, '-inf', at)
          .publish(REVOCATIONS_CHANNEL, publish({ entry, until })),
      );
      return { entry, expiresAt: new Date(until).toISOString() };
    },
    async unrevoke(entry) {
      send();
      const [removed] = await run(
        client
          .multi()
          .zrem(REVOCATIONS_KEY, entry)
          .publish(REVOCATIONS_CHANNEL, publish({ entry, until: null })),
      );
      return removed === 1;
    },
    async list() {
      return pairsOf(await loadRevocations(client, now())).map(([entry, until]) => ({
        entry,
        expiresAt: new Date(until).toISOString(),
      }));
    },
    async firstSeen(key, ttlMs) {
      return (await client.set(`${SEEN_PREFIX}${key}`, '1', 'PX', ttlMs, 'NX')) === 'OK';
    },
  };
}

/** The entries in force at `nowMs`, as Redis answers them: `[entry, score, entry, score, ...]`. */
export function loadRevocations(client: Redis, nowMs: number): Promise<string[]> {
  return client.zrangebyscore(REVOCATIONS_KEY, `(${nowMs}`, '+inf', 'WITHSCORES');
}

/** Redis's flat answer as `[entry, end]` pairs. */
export function pairsOf(flat: readonly string[]): [string, number][] {
  const pairs: [string, number][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) pairs.push([flat[i] as string, Number(flat[i + 1])]);
  return pairs;
}

/** A change as published, or `null` for a message that is not one (never thrown: Redis is shared). */
export function parseChange(message: string): RevocationChange | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  const { entry, until } = (value ?? {}) as Partial<RevocationChange>;
  if (typeof entry !== 'string' || (until !== null && typeof until !== 'number')) return null;
  return { entry, until };
}

/** Runs a MULTI; the results, or the first error (a command refused inside the transaction). */
async function run(multi: ReturnType<Redis['multi']>): Promise<unknown[]> {
  const results = (await multi.exec()) ?? [];
  return results.map(([error, result]) => {
    if (error !== null) throw error;
    return result;
  });
}
