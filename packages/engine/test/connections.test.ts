import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger, startRedis, type RedisServer } from '@authlayer/testkit';
import { Connections } from '../src/connections.js';
import { API_KEYS, engineAt, KEYS, T } from './support/engine-at.js';

// What outlives a generation, on a real redis-server: the replay cache the handlers share through
// the revocation store, one shared store per URL, and a reload that would change the revocation
// section (kept as at start, and said so), while a revocation still ends a held request.

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis?.stop());

describe('Connections', () => {
  it("the handlers' replay cache: refused until the store is connected, then first seen once", async () => {
    const logger = createCaptureLogger();
    const connections = new Connections({ env: {}, logger, now: () => T }, logger, () => T);
    const config = parseAuthConfig({ auth: API_KEYS, revocation: { store: redis.url } });
    try {
      const { replayCache } = connections.handlerDeps(config);
      await expect(replayCache!.firstSeen('dpop:jti-1', 60_000)).rejects.toThrow('not connected');
      await connections.limitsFor(config);
      await connections.revocationFor(config, []);
      expect(await replayCache!.firstSeen('dpop:jti-1', 60_000)).toBe(true);
      expect(await replayCache!.firstSeen('dpop:jti-1', 60_000)).toBe(false);
    } finally {
      connections.close();
    }
  });

  it('no replay cache without a revocation store; one shared store per URL, whoever asks', async () => {
    const logger = createCaptureLogger();
    const connections = new Connections({ env: {}, logger, now: () => T }, logger, () => T);
    try {
      const deps = connections.handlerDeps(parseAuthConfig({ auth: API_KEYS }));
      expect(deps.replayCache).toBeUndefined();
      const [one, two] = [
        await deps.connectStore!(redis.url, 'auth.oauth2.cache_store'),
        await deps.connectStore!(redis.url, 'auth.oauth2.cache_store'),
      ];
      expect(one).toBe(two);
      await one.set('introspection:k', 'v', 30_000);
      expect(await two.get('introspection:k')).toBe('v');
    } finally {
      connections.close();
    }
  });
});

describe('an engine with a revocation store', () => {
  it('keeps its revocation section at a reload, and says so; a revocation still ends a held request', async () => {
    const config = { auth: API_KEYS, revocation: { store: redis.url } };
    const { engine, logger } = await engineAt(config);
    try {
      await engine.reload({ auth: API_KEYS });
      expect(logger.text).toContain(
        'warn: config reload: revocation changed; it is kept as it was at start until a restart',
      );
      const ended = new Promise<string>((resolve) =>
        engine.hold(
          {
            context: createAuthContext({ method: 'api_key', userId: 'admin', roles: ['admin'] }),
            request: { headers: { 'x-api-key': KEYS.admin } },
            requestId: null,
            planOf: () => null,
          },
          resolve,
        ),
      );
      await engine.revoke('sub:admin', { ttlSeconds: 600 });
      expect(await ended).toBe('token_revoked');
      expect(engine.held()).toBe(0);
    } finally {
      await engine.close();
    }
  });
});
