import { z } from 'zod';
import { redisUrl } from '../fields.js';

// The top-level `revocation` section: a list of revoked tokens and subjects in Redis, which every
// replica copies and is told of changes to.

// host:port of a sentinel: a name, an IPv4 address or a bracketed IPv6 address, and a port.
const SENTINEL = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([1-9][0-9]{0,4})$/;
const SENTINEL_MESSAGE = 'must be host:port, for example 10.0.0.5:26379';

const sentinelSchema = z.strictObject({
  sentinels: z
    .array(z.string().regex(SENTINEL, SENTINEL_MESSAGE))
    .min(1, 'must list at least one sentinel (host:port)'),
  name: z.string().min(1, 'must name the primary the sentinels watch (their `sentinel monitor` name)'),
  db: z.int().min(0, 'must be 0 to 15').max(15, 'must be 0 to 15').default(0),
});

export const revocationSchema = z
  .strictObject({
    store: z.union([redisUrl, sentinelSchema]),
  })
  .nullable()
  .default(null);

/** `revocation.store` through Redis Sentinel: the sentinels to ask, and the primary's name. */
export interface RedisSentinelStore {
  /** `host:port` of each sentinel (at least one). */
  readonly sentinels: readonly string[];
  /** The name the sentinels monitor the primary by. */
  readonly name: string;
  /** The database number on the primary (default 0). */
  readonly db: number;
}

/** `revocation`: where the revocation list lives. */
export interface RevocationConfig {
  /** The Redis URL shared by every replica (`redis://host:port/db`), or the Sentinel set to ask for its primary. */
  readonly store: string | RedisSentinelStore;
}

export function toRevocationConfig(raw: z.output<typeof revocationSchema>): RevocationConfig | null {
  if (raw === null) return null;
  const { store } = raw;
  return {
    store: typeof store === 'string' ? store : { sentinels: [...store.sentinels], name: store.name, db: store.db },
  };
}
