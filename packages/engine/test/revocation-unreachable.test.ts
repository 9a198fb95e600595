import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, freePort, startRedis, type RedisServer } from '@authlayer/testkit';
import { openRevocationCommands } from '../src/revocation/revocation-admin.js';
import { followRevocations } from '../src/revocation/revocation-store.js';

// revocation.store unreachable from the start, on a real redis-server killed before the replica
// starts, and through Sentinel addresses where nothing listens: start-up goes on with one warning
// and the list unavailable (never the address), the admin connection refuses with a clear error.
const T = 1_800_000_000_000;
const UNAVAILABLE =
  /^warn: revocation\.store: Redis is unreachable; the revocation list is not loaded \(\/readyz: revocations unavailable\) until it is back$/;

describe('revocation.store unreachable at start-up', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(() => redis.stop());

  it('a Redis down at start: unavailable with one warning, then loaded once it is back', async () => {
    await redis.kill();
    const logger = createCaptureLogger();
    const store = await followRevocations(redis.url, logger, () => T);
    try {
      expect(store.state()).toBe('unavailable');
      await logger.waitFor(UNAVAILABLE);
      await redis.restart();
      await logger.waitFor(
        /^info: revocation\.store: Redis is reachable; the revocation list is loaded again \(0 entries\)$/,
      );
      expect(store.state()).toBe('loaded');
      expect(logger.text.filter((line) => line.startsWith('warn:'))).toHaveLength(1);
      expect(logger.text.join('\n')).not.toContain(String(redis.port));
    } finally {
      store.close();
    }
  });

  it('sentinels that do not answer: the replica starts unavailable, the admin connection refuses', async () => {
    const port = await freePort();
    const sentinels = { sentinels: [`127.0.0.1:${port}`], name: 'authlayer', db: 0 };
    const logger = createCaptureLogger();
    const store = await followRevocations(sentinels, logger, () => T);
    try {
      await logger.waitFor(UNAVAILABLE);
      expect(store.state()).toBe('unavailable');
    } finally {
      store.close();
    }
    const refusal = await openRevocationCommands(sentinels, () => T).catch((error: unknown) => error);
    expect(refusal).toEqual(new Error('revocation.store: Redis is unreachable'));
    expect(logger.text.join('\n')).not.toContain(String(port));
  });
});
