import { describe, expect, it } from '@jest/globals';
import { createAuthContext } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { followRevocations } from '../src/revocation/revocation-store.js';
import { REVOCATIONS_CHANNEL, REVOCATIONS_KEY } from '../src/revocation/revocation-commands.js';
import { RELOAD_MESSAGE } from '../src/revocation/revocation-generation.js';
import { useRedis } from './support/redis-at-hand.js';

// A listener of the list's changes that throws (an adapter's bug) on a real redis-server: the
// list still follows Redis, the other listeners still hear of each change, and the failure is
// logged by its kind (never its message).

const T = 1_800_000_000_000;
const ada = createAuthContext({ method: 'jwt', userId: 'ada', claims: { sub: 'ada', jti: 't-1' } });
const grace = createAuthContext({ method: 'jwt', userId: 'grace', claims: { sub: 'grace', jti: 't-2' } });

class ListenerBug extends Error {
  override name = 'ListenerBug';
}

describe('a change listener that throws', () => {
  const at = useRedis();

  it('does not keep the changes from the listeners after it, nor from the list', async () => {
    await at.admin.flushall();
    const logger = createCaptureLogger();
    const store = await followRevocations(at.redis.url, logger, () => T);
    const heard: string[] = [];
    // The failing listener is the first asked: its calls tell that a change arrived.
    let told = (): void => {};
    store.onChange(() => {
      told();
      throw new ListenerBug('secret detail');
    });
    store.onChange(() => heard.push(`${store.isRevoked(ada)} ${store.isRevoked(grace)}`));
    const change = async (entry: string) => {
      const arrived = new Promise<void>((resolve) => (told = resolve));
      await at.admin.publish(REVOCATIONS_CHANNEL, JSON.stringify({ entry, until: T + 60_000 }));
      await arrived;
    };
    try {
      await change('sub:ada');
      await change('sub:grace');
      expect(heard).toEqual(['true false', 'true true']);
      const errors = logger.text.filter((line) => line.startsWith('error:'));
      expect(errors).toEqual([
        'error: revocation.store: a change listener failed (ListenerBug)',
        'error: revocation.store: a change listener failed (ListenerBug)',
      ]);
      expect(logger.text.join('\n')).not.toContain('secret detail');
    } finally {
      store.close();
    }
  });

  it('does not make a full load count as failed', async () => {
    await at.admin.flushall();
    const logger = createCaptureLogger();
    const store = await followRevocations(at.redis.url, logger, () => T);
    let calls = 0;
    store.onChange(() => {
      calls += 1;
      throw new ListenerBug('secret detail');
    });
    try {
      await at.admin.zadd(REVOCATIONS_KEY, T + 3_600_000, 'sub:ada');
      const before = logger.text.length;
      await at.admin.publish(REVOCATIONS_CHANNEL, RELOAD_MESSAGE);
      // The load's outcome, whichever it is: loaded (and logged once), or failed and tried again.
      await logger.waitFor(/loaded \(1 entries\)|could not be loaded/);
      const after = logger.text.slice(before);
      expect(after).toEqual([
        'error: revocation.store: a change listener failed (ListenerBug)',
        'info: revocation.store: the revocation list is loaded (1 entries)',
      ]);
      expect(store.state()).toBe('loaded');
      expect(store.isRevoked(ada)).toBe(true);
      expect(calls).toBe(1);
    } finally {
      store.close();
    }
  });
});
