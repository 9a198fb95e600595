import { afterAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { REVOCATIONS_KEY } from '../src/revocation/revocation-commands.js';
import { createRevocationFlow, revocationApi, type RevocationApi } from '../src/revocation/revocation-flow.js';
import { followRevocations, type RevocationStore } from '../src/revocation/revocation-store.js';
import { useRedis } from './support/redis-at-hand.js';

// A change Redis answers with an error was not made: the caller is told so, with Redis's code and
// never its text, not that the outcome is unknown (that is for a change sent and not answered).
// Real redis-servers: a key of another type, and a replica that refuses writes (as a failed-over
// primary does until it is promoted back).
const T = 1_800_000_000_000;

describe('a change Redis refuses', () => {
  const primary = useRedis();
  const replica = useRedis();
  const stores: RevocationStore[] = [];
  afterAll(() => {
    for (const store of stores) store.close();
  });

  const apiOn = async (url: string): Promise<RevocationApi> => {
    const store = await followRevocations(url, createCaptureLogger(), () => T);
    stores.push(store);
    return revocationApi(await createRevocationFlow({ store: url }, [], createCaptureLogger(), () => T, store));
  };

  it('a list key of another type: WRONGTYPE, the list was not changed', async () => {
    const { admin } = primary;
    const api = await apiOn(primary.redis.url);
    await admin.set(REVOCATIONS_KEY, 'not a sorted set');
    const refused = 'revocation.store: Redis refused the change (WRONGTYPE); the list was not changed';
    await expect(api.revoke('sub:ada', { ttlSeconds: 60 })).rejects.toThrow(refused);
    await expect(api.unrevoke('sub:ada')).rejects.toThrow(refused);
    expect(await admin.get(REVOCATIONS_KEY)).toBe('not a sorted set');
  });

  it('a replica that refuses writes: READONLY, named by the command that discarded the transaction', async () => {
    await primary.admin.flushall();
    const { admin } = replica;
    const api = await apiOn(replica.redis.url);
    await admin.replicaof('127.0.0.1', primary.redis.port);
    const error = await api.revoke('sub:grace', { ttlSeconds: 60 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      'revocation.store: Redis refused the change (READONLY); the list was not changed',
    );
    expect(await admin.zscore(REVOCATIONS_KEY, 'sub:grace')).toBeNull();
  });
});
