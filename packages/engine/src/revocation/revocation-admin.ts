import type { RevocationConfig } from '@authlayer/core';
import type { RevocationCommands } from './revocation-entry.js';
import { revocationCommands } from './revocation-commands.js';
import { CONNECTION, openStoreConnection } from './revocation-connection.js';

/**
 * A connection for changing and listing the list, with no copy, no subscription, no reconnection
 * (see `connectRevocations`).
 *
 * @throws Error when Redis cannot be reached: nothing was sent (the message never holds the URL)
 */
export async function openRevocationCommands(
  store: RevocationConfig['store'],
  now: () => number,
): Promise<RevocationCommands & { close(): void }> {
  const client = openStoreConnection(store, {
    ...CONNECTION,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
    lazyConnect: true,
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch {
    client.disconnect();
    throw new Error('revocation.store: Redis is unreachable');
  }
  return { ...revocationCommands(client, now), close: () => client.disconnect() };
}
