import { beforeAll, describe, expect, it } from '@jest/globals';
import { verifiedClaims, type AuthContext } from '@authlayer/core';
import { createSigningKey, type SigningKey } from '@authlayer/testkit';
import { bearer, failure, staticHandler } from './fixtures.js';

let key: SigningKey;
beforeAll(async () => {
  key = await createSigningKey('ES256');
});

describe('deps.isRevoked', () => {
  it('is asked on every request with the context and the claims, cache hits included', async () => {
    const asked: [AuthContext, Readonly<Record<string, unknown>>][] = [];
    const { handler, token } = await staticHandler(
      key,
      {},
      {
        isRevoked: (context, claims) => {
          asked.push([context, claims]);
          return false;
        },
      },
    );
    const sent = await token({ jti: 'j-1' });
    for (let i = 0; i < 5; i += 1)
      await expect(handler.authenticate(bearer(sent))).resolves.toMatchObject({ userId: 'user-1' });
    expect(asked).toHaveLength(5);
    expect(asked[4]?.[0]).toMatchObject({ method: 'jwt', userId: 'user-1' });
    expect(asked[4]?.[1]).toMatchObject({ sub: 'user-1', jti: 'j-1' });
  });

  it("is given the context's own frozen claims, not a second copy of them", async () => {
    const asked: [AuthContext, Readonly<Record<string, unknown>>][] = [];
    const isRevoked = (context: AuthContext, claims: Readonly<Record<string, unknown>>) =>
      asked.push([context, claims]) < 0;
    const { handler, token } = await staticHandler(key, {}, { isRevoked });
    const sent = await token({ jti: 'j-1' });
    for (let i = 0; i < 3; i += 1) await handler.authenticate(bearer(sent));
    for (const [context, claims] of asked) {
      expect(claims).toBe(verifiedClaims(context));
      expect(Object.isFrozen(claims)).toBe(true);
    }
  });

  it('refuses a token revoked after it was cached: token_revoked, and never from the cache', async () => {
    const revoked = new Set<string>();
    const isRevoked = async (_context: AuthContext, claims: Readonly<Record<string, unknown>>) =>
      revoked.has(String(claims.jti));
    const { handler, token } = await staticHandler(key, {}, { isRevoked });
    const sent = await token({ jti: 'j-2' });
    for (let i = 0; i < 3; i += 1) await handler.authenticate(bearer(sent)); // cached by now
    revoked.add('j-2');
    await expect(handler.authenticate(bearer(sent))).rejects.toMatchObject(failure('token_revoked'));
    await expect(handler.authenticate(bearer(sent))).rejects.toMatchObject(failure('token_revoked'));
    const other = await token({ jti: 'j-3' });
    await expect(handler.authenticate(bearer(other))).resolves.toMatchObject({ userId: 'user-1' });
    revoked.delete('j-2');
    await expect(handler.authenticate(bearer(sent))).resolves.toMatchObject({ userId: 'user-1' });
  });

  it('refuses on a fresh verification too, and caches nothing then', async () => {
    let calls = 0;
    const { handler, token } = await staticHandler(key, {}, { isRevoked: () => (calls += 1) <= 3 });
    const sent = await token();
    for (let i = 0; i < 3; i += 1)
      await expect(handler.authenticate(bearer(sent))).rejects.toMatchObject(failure('token_revoked'));
    await expect(handler.authenticate(bearer(sent))).resolves.toMatchObject({ userId: 'user-1' });
  });

  it('fails closed when the hook throws, rejects or answers something other than a boolean, and logs it without the token', async () => {
    const hooks = [
      () => {
        throw new RangeError('database down');
      },
      () => Promise.reject(new Error('timeout')),
      () => 'no' as unknown as boolean,
      () => {
        throw 'a string';
      },
    ];
    for (const isRevoked of hooks) {
      const { handler, token, logger } = await staticHandler(key, {}, { isRevoked });
      const sent = await token();
      await expect(handler.authenticate(bearer(sent))).rejects.toMatchObject(failure('token_revoked'));
      expect(logger.lines).toEqual([
        { level: 'error', message: expect.stringMatching(/^isRevoked (failed|answered)/) },
      ]);
      expect(JSON.stringify(logger.lines)).not.toContain(sent.slice(-20));
    }
  });

  it('must be a function', async () => {
    await expect(staticHandler(key, {}, { isRevoked: true as never })).rejects.toThrow(
      new TypeError('isRevoked must be a function'),
    );
  });
});
