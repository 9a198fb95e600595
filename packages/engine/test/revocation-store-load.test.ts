import { describe, expect, it } from '@jest/globals';
import { createAuthContext } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { followRevocations } from '../src/revocation/revocation-store.js';
import { REVOCATIONS_CHANNEL, REVOCATIONS_KEY } from '../src/revocation/revocation-commands.js';
import { useRedis } from './support/redis-at-hand.js';

// A replica's copy of the list on a real redis-server that answers but cannot give the list (the
// key holds another type: an operator's mistake), and messages on the channel that are not changes.

const T = 1_800_000_000_000;
const ada = createAuthContext({ method: 'jwt', userId: 'ada', claims: { sub: 'ada', jti: 't-1' } });

describe('following the revocation list', () => {
  const at = useRedis();

  it('a list Redis cannot give: not loaded, one warning, tried again until it loads', async () => {
    await at.admin.flushall();
    await at.admin.set(REVOCATIONS_KEY, 'not a sorted set');
    const logger = createCaptureLogger();
    const store = await followRevocations(at.redis.url, logger, () => T);
    try {
      expect(store.state()).toBe('unavailable');
      expect(store.isRevoked(ada)).toBe(false);
      await logger.waitFor(
        /^warn: revocation\.store: the revocation list could not be loaded from Redis; trying again/,
      );
      await at.admin.del(REVOCATIONS_KEY);
      await at.admin.zadd(REVOCATIONS_KEY, T + 3_600_000, 'sub:ada');
      await logger.waitFor(
        /^info: revocation\.store: Redis is reachable; the revocation list is loaded again \(1 entries\)/,
      );
      expect(store.state()).toBe('loaded');
      expect(store.isRevoked(ada)).toBe(true);
      expect(logger.text.filter((line) => line.startsWith('warn:'))).toHaveLength(1);
    } finally {
      store.close();
    }
  });

  it('a message on the channel that is not a change is ignored; the changes after it apply', async () => {
    await at.admin.flushall();
    const logger = createCaptureLogger();
    const store = await followRevocations(at.redis.url, logger, () => T);
    const changes: boolean[] = [];
    store.onChange(() => changes.push(store.isRevoked(ada)));
    try {
      expect(store.state()).toBe('loaded');
      for (const message of ['not json', 'null', '{"entry":7,"until":1}', '{"entry":"sub:ada","until":"soon"}']) {
        await at.admin.publish(REVOCATIONS_CHANNEL, message);
      }
      // Listened for before publishing: the subscriber may hear the change before PUBLISH's reply.
      const changed = new Promise<void>((resolve) => store.onChange(resolve));
      await at.admin.publish(REVOCATIONS_CHANNEL, JSON.stringify({ entry: 'sub:ada', until: T + 60_000 }));
      await changed;
      expect(changes).toEqual([true]);
      expect(logger.text.filter((line) => line.startsWith('warn:'))).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('a change Redis refuses inside its transaction: rejected with that error, not claimed as made', async () => {
    await at.admin.flushall();
    const store = await followRevocations(at.redis.url, createCaptureLogger(), () => T);
    try {
      await at.admin.set(REVOCATIONS_KEY, 'not a sorted set');
      await expect(store.revoke('sub:ada', 60)).rejects.toThrow(/^WRONGTYPE/);
      await expect(store.unrevoke('sub:ada')).rejects.toThrow(/^WRONGTYPE/);
      expect(await at.admin.get(REVOCATIONS_KEY)).toBe('not a sorted set');
    } finally {
      store.close();
    }
  });

  it('firstSeen: true once per key while its time lasts (the replay cache), on the same Redis', async () => {
    await at.admin.flushall();
    const store = await followRevocations(at.redis.url, createCaptureLogger(), () => T);
    try {
      expect(await store.firstSeen('jti:t-1', 60_000)).toBe(true);
      expect(await store.firstSeen('jti:t-1', 60_000)).toBe(false);
      expect(await store.firstSeen('jti:t-2', 60_000)).toBe(true);
      const ttl = await at.admin.pttl('authlayer:seen:jti:t-1');
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      store.close();
    }
  });
});
