import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createAuthContext, isAuthError, type AuthHandler } from '@authlayer/core';
import { createCaptureLogger, startRedis, type RedisServer } from '@authlayer/testkit';
import { createRevocationFlow, revocationApi } from '../src/revocation/revocation-flow.js';
import { followRevocations, type RevocationStore } from '../src/revocation/revocation-store.js';

// The refusal of a revoked caller when the handler never refuses a request without credentials
// (a custom mode that lets everyone in as someone), so no challenge of its own was learned: the
// contract's Bearer token_revoked. The handler answers later (a Promise), as a remote check does;
// the list is a real one, followed on a real redis-server.
const T = 1_800_000_000_000;
const ada = createAuthContext({ method: 'jwt', userId: 'ada', claims: { sub: 'ada' } });
const grace = createAuthContext({ method: 'jwt', userId: 'grace', claims: { sub: 'grace' } });

describe('a revoked caller of a mode that refuses nobody', () => {
  let redis: RedisServer;
  let store: RevocationStore;
  beforeAll(async () => {
    redis = await startRedis();
    store = await followRevocations(redis.url, createCaptureLogger(), () => T);
  });
  afterAll(async () => {
    store.close();
    await redis.stop();
  });

  it('401 token_revoked with the Bearer challenge; a caller not revoked passes', async () => {
    let caller = ada;
    const everyone: AuthHandler = { method: 'jwt', authenticate: () => Promise.resolve(caller) };
    const flow = await createRevocationFlow({ store: redis.url }, [everyone], createCaptureLogger(), () => T, store);
    const authenticate = flow.wrap((request) => everyone.authenticate(request));
    await revocationApi(flow).revoke('sub:ada', { ttlSeconds: 3600 });
    const refusal: unknown = await Promise.resolve(authenticate({ headers: {} })).catch((error: unknown) => error);
    expect(isAuthError(refusal)).toBe(true);
    expect(refusal).toMatchObject({
      reason: 'token_revoked',
      status: 401,
      challenge: 'Bearer realm="authlayer", error="invalid_token", error_description="the token has been revoked"',
    });
    caller = grace;
    await expect(authenticate({ headers: {} })).resolves.toBe(grace);
  });
});
