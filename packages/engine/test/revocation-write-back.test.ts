import { afterEach, describe, expect, it } from '@jest/globals';
import { createAuthContext } from '@authlayer/core';
import { createCaptureLogger, type CaptureLogger } from '@authlayer/testkit';
import { Redis } from 'ioredis';
import { REVOCATIONS_KEY } from '../src/revocation/revocation-commands.js';
import { followRevocations, type RevocationStore } from '../src/revocation/revocation-store.js';
import { useRedis } from './support/redis-at-hand.js';

// A replica giving a store that lost its data (FLUSHALL, seen by the heartbeat) its list back, on a
// real redis-server: with nothing to give, and when Redis refuses the write-back (the key holds
// another type) until an operator removes that key. The copy is never emptied meanwhile.
const T = 1_800_000_000_000;
const ada = createAuthContext({ method: 'jwt', userId: 'ada', claims: { sub: 'ada' } });
const LOST = /^warn: revocation\.store: Redis lost the revocation list .*; wrote back the (\d+) entries in force here$/;

describe('writing the list back to a store that lost it', () => {
  const at = useRedis();
  let store: RevocationStore | undefined;
  afterEach(() => store?.close());

  async function follow(): Promise<{ store: RevocationStore; logger: CaptureLogger }> {
    await at.admin.flushall();
    const logger = createCaptureLogger();
    store = await followRevocations(at.redis.url, logger, () => T);
    expect(store.state()).toBe('loaded');
    return { store, logger };
  }

  it('nothing in force here: nothing written, said once, the empty list loaded', async () => {
    const { store: mine, logger } = await follow();
    await at.admin.flushall();
    expect((await logger.waitFor(LOST)).match(LOST)?.[1]).toBe('0');
    await logger.waitFor(/^info: revocation\.store: the revocation list is loaded \(0 entries\)$/);
    expect(mine.state()).toBe('loaded');
    expect(await at.admin.exists(REVOCATIONS_KEY)).toBe(0);
  });

  it('a write-back Redis refuses: tried again, the entries kept here, written once the key is freed', async () => {
    const { store: mine, logger } = await follow();
    await mine.revoke('sub:ada', 3600);
    mine.apply('sub:ada', T + 3_600_000);
    let forgot = false;
    mine.onChange(() => (forgot ||= !mine.isRevoked(ada)));
    // Watches the write-backs Redis is sent (ZADD GT): the test frees the key after the second.
    const watcher = new Redis(at.redis.url);
    const monitor = await watcher.monitor();
    const tried = new Promise<void>((resolve) => {
      let writes = 0;
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === 'zadd' && args.includes('GT') && ++writes === 2) resolve();
      });
    });
    try {
      // Lost, and the key taken by another type, in one step: no heartbeat sees one without the other.
      await at.admin.multi().flushall().set(REVOCATIONS_KEY, 'not a sorted set').exec();
      await tried;
      expect(mine.isRevoked(ada)).toBe(true);
      await at.admin.del(REVOCATIONS_KEY);
      expect((await logger.waitFor(LOST)).match(LOST)?.[1]).toBe('1');
      await logger.waitFor(/^info: revocation\.store: .*the revocation list is loaded( again)? \(1 entries\)$/);
    } finally {
      monitor.disconnect();
      watcher.disconnect();
    }
    expect(await at.admin.zrange(REVOCATIONS_KEY, '0', '-1')).toEqual(['sub:ada']);
    expect([mine.isRevoked(ada), forgot]).toEqual([true, false]);
    // One warning at most for the whole outage, however many tries it took.
    expect(logger.text.filter((line) => line.includes('could not be loaded')).length).toBeLessThanOrEqual(1);
  });
});
