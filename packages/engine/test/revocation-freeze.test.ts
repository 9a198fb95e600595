import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startRedis, type RedisServer } from '@authlayer/testkit';
import { revocationApi, type RevocationFlow } from '../src/revocation/revocation-flow.js';
import { followRevocations, type RevocationStore } from '../src/revocation/revocation-store.js';

// A Redis that stops answering with its connection open (SIGSTOP of a real redis-server) counts as
// down; a change is refused "not applied" when nothing was sent, "unknown" only when it was.
const T = 1_800_000_000_000;
const NOT_APPLIED =
  'revocation.store: Redis is unreachable; the change was not applied (nothing was sent); make it again once Redis is back';
const UNKNOWN =
  'revocation.store: Redis did not answer in time; the outcome is unknown (the change may have been applied); calling it again is safe';

/** Polls `check` until it holds (no bound of ours: the test's timeout is the bound). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a frozen or dead Redis', () => {
  let redis: RedisServer;
  let store: RevocationStore;
  let api: ReturnType<typeof revocationApi>;
  const logger = createCaptureLogger();
  beforeAll(async () => {
    redis = await startRedis();
    store = await followRevocations(redis.url, logger, () => T);
    api = revocationApi({ store } as RevocationFlow);
  });
  afterAll(async () => {
    store.close();
    await redis.stop();
  });

  it('frozen (SIGSTOP): counts as down (stale), a change is refused unsent; going on (SIGCONT): loaded again', async () => {
    expect(store.state()).toBe('loaded');
    redis.pause();
    try {
      await until(() => store.state() === 'stale');
      await logger.waitFor(/Redis is unreachable; the revocations known here stay enforced/);
      await expect(api.revoke('sub:frozen', { ttlSeconds: 60 })).rejects.toThrow(NOT_APPLIED);
    } finally {
      redis.resume();
    }
    await until(() => store.state() === 'loaded');
    // Nothing was queued in the frozen server: the change was not made.
    expect(await api.revocations()).toEqual([]);
  });

  it('frozen, the change sent before anyone noticed: the outcome is unknown', async () => {
    redis.pause();
    let refused: unknown;
    try {
      refused = await api.revoke('sub:sent', { ttlSeconds: 60 }).catch((error: unknown) => error);
    } finally {
      redis.resume();
    }
    expect(refused).toMatchObject({ message: UNKNOWN });
    await until(() => store.state() === 'loaded');
  });

  it('down (killed): a change is refused at once, not applied; back: made', async () => {
    await redis.kill();
    await until(() => store.state() === 'stale');
    await expect(api.revoke('sub:down', { ttlSeconds: 60 })).rejects.toThrow(NOT_APPLIED);
    await expect(api.unrevoke('sub:down')).rejects.toThrow(NOT_APPLIED);
    await redis.restart();
    await until(() => store.state() === 'loaded');
    await api.revoke('sub:down', { ttlSeconds: 60 });
    expect((await api.revocations()).map((made) => made.entry)).toContain('sub:down');
  });
});
