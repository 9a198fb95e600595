import type { RevocationConfig } from '@authlayer/core';
import { Redis, type RedisOptions } from 'ioredis';
import { RECONNECTING } from '../rate-limit/redis-store.js';

/** The options of every revocation connection. */
export const CONNECTION: RedisOptions = {
  ...RECONNECTING,
  // Back within half a second of Redis's return, so a store that lost its data gets the list back
  // within a second (RECONNECTING waits up to 2 s between attempts).
  retryStrategy: (times) => Math.min(times * 100, 500),
  // Bounds a full load too: a list of a hundred thousand entries loads in well under this.
  commandTimeout: 2000,
};

/**
 * A connection to `revocation.store`: a URL as it is, or a Sentinel set through ioredis's own
 * support, which asks the sentinels for the primary at each (re)connection and, with its failover
 * detector, drops the connection when they announce a new one, so every replica follows a failover.
 */
export function openStoreConnection(store: RevocationConfig['store'], options: RedisOptions): Redis {
  if (typeof store === 'string') return new Redis(store, options);
  return new Redis({
    // Sentinels are asked again quickly: a failover takes seconds, and the list waits for it.
    sentinelRetryStrategy: (times) => Math.min(times * 100, 1000),
    ...options,
    sentinels: store.sentinels.map(hostAndPort),
    name: store.name,
    db: store.db,
    failoverDetector: true,
  });
}

/** `host:port` (the config checked it), a bracketed IPv6 address unbracketed. */
function hostAndPort(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}
