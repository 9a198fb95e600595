import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthContext } from '@authlayer/core';
import { createCaptureLogger, type CaptureLogger } from '@authlayer/testkit';
import { Redis } from 'ioredis';
import { REVOCATIONS_KEY } from '../src/revocation/revocation-commands.js';
import { followRevocations, type RevocationStore } from '../src/revocation/revocation-store.js';
import { startSentinelSet, until, type SentinelSet } from './sentinel-set.js';

// revocation.store through Redis Sentinel, on real redis-servers (a primary, a replica, a
// sentinel): after a failover every replica follows the new primary, what was revoked before it
// holds, even a change the promoted replica never received, and a change made after it reaches
// every replica. No time is asserted: each step waits on the state it needs.
const T = 1_800_000_000_000;
const subject = (sub: string): AuthContext => createAuthContext({ method: 'jwt', userId: sub, claims: { sub } });
const WROTE_BACK = /Redis lost the revocation list or is a new primary .*wrote back the \d+ entries/;

describe('revocation.store on Redis Sentinel', () => {
  let set: SentinelSet;
  const stores: RevocationStore[] = [];
  const loggers: CaptureLogger[] = [];
  const clients: Redis[] = [];
  const redisAt = (port: number): Redis => {
    const client = new Redis({ port, host: '127.0.0.1', connectionName: 'test-probe' });
    clients.push(client);
    return client;
  };
  const follow = async (): Promise<RevocationStore> => {
    const logger = createCaptureLogger();
    const store = await followRevocations(
      { sentinels: [`127.0.0.1:${set.sentinelPort}`], name: set.name, db: 0 },
      logger,
      () => T,
    );
    stores.push(store);
    loggers.push(logger);
    return store;
  };
  /** Asks `store` until a primary takes the change (during a failover the old one refuses writes). */
  const revokeThrough = (store: RevocationStore, entry: string) =>
    until(() =>
      store.revoke(entry, 3600).then(
        () => true,
        () => false,
      ),
    );
  const everyStore = (sub: string) => () => stores.every((store) => store.isRevoked(subject(sub)));

  beforeAll(async () => {
    set = await startSentinelSet();
  });
  afterAll(async () => {
    for (const store of stores) store.close();
    for (const client of clients) client.disconnect();
    await set?.stop();
  });

  it('a failover: revocations before it hold and are on the new primary, one after it reaches every replica', async () => {
    const [a, b] = [await follow(), await follow(), await follow()];
    expect(stores.map((store) => store.state())).toEqual(['loaded', 'loaded', 'loaded']);
    await a!.revoke('sub:ada', 3600);
    await until(everyStore('ada'));
    const [primary, replica] = [redisAt(set.primaryPort), redisAt(set.replicaPort)];
    await until(async () => (await replica.zscore(REVOCATIONS_KEY, 'sub:ada')) !== null);

    // A change the old primary took in its last moment and the replica never got: the replica
    // (writable for this step) drops it, as one that lagged would not have it.
    await b!.revoke('sub:grace', 3600);
    await until(everyStore('grace'));
    await until(async () => (await replica.zscore(REVOCATIONS_KEY, 'sub:grace')) !== null);
    await replica.config('SET', 'replica-read-only', 'no');
    await replica.zrem(REVOCATIONS_KEY, 'sub:grace');
    await replica.config('SET', 'replica-read-only', 'yes');

    expect(await set.failover()).toBe(set.replicaPort);
    // Every replica reaches the new primary, sees an address it did not load from, writes back.
    await Promise.all(loggers.map((logger) => logger.waitFor(WROTE_BACK)));
    await until(async () => (await replica.zscore(REVOCATIONS_KEY, 'sub:grace')) !== null);
    expect(await replica.zscore(REVOCATIONS_KEY, 'sub:ada')).not.toBeNull();
    // None of the stores' connections stays on the old primary (now a replica of the new one).
    await until(async () => !(await ourClientsOn(primary)));
    expect([everyStore('ada')(), everyStore('grace')()]).toEqual([true, true]);

    await revokeThrough(stores[2]!, 'sub:lin');
    await until(everyStore('lin'));
    const later = await follow();
    expect([
      later.isRevoked(subject('ada')),
      later.isRevoked(subject('grace')),
      later.isRevoked(subject('lin')),
    ]).toEqual([true, true, true]);
  });
});

/** Whether a store's connection is on `server`: one not the sentinel's, the replication link or a probe. */
async function ourClientsOn(server: Redis): Promise<boolean> {
  const list = (await server.client('LIST')) as string;
  return list
    .split('\n')
    .filter((line) => line.trim() !== '')
    .some((line) => !/ name=(sentinel-|test-probe)/.test(line) && !/ flags=[^ ]*[MS]/.test(line));
}
