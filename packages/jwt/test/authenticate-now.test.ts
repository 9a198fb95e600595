import { beforeAll, describe, expect, it } from '@jest/globals';
import { type AuthContext } from '@authlayer/core';
import { isPromiseLike } from '@authlayer/core/internal';
import { createSigningKey, type SigningKey } from '@authlayer/testkit';
import { bearer, failure, staticHandler } from './fixtures.js';

let key: SigningKey;
beforeAll(async () => {
  key = await createSigningKey('RS256');
});

/** The handler's synchronous form, which every JWT handler has. */
function nowOf(handler: { authenticateNow?: (request: ReturnType<typeof bearer>) => unknown }) {
  expect(handler.authenticateNow).toBeInstanceOf(Function);
  return (token: string) => handler.authenticateNow!(bearer(token));
}

/** What `run` threw synchronously (the test fails when it returns instead). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a synchronous throw');
}

describe('JWT authenticateNow (the same turn, no Promise)', () => {
  it('answers a fresh token with a static key synchronously, the same context authenticate resolves', async () => {
    const { handler, token } = await staticHandler(key);
    const sent = await token();
    const answer = nowOf(handler)(sent);
    expect(isPromiseLike(answer as never)).toBe(false);
    expect(answer).toEqual(await handler.authenticate(bearer(sent)));
    expect(answer).toMatchObject({ method: 'jwt', userId: 'user-1' });
  });

  it('answers a cached token synchronously (second and third use)', async () => {
    const { handler, token } = await staticHandler(key);
    const sent = await token({ jti: 'cached' });
    const answers = [1, 2, 3].map(() => nowOf(handler)(sent));
    expect(answers.some((answer) => isPromiseLike(answer as never))).toBe(false);
    expect(answers[2]).toBe(answers[1]);
  });

  it('throws the AuthError synchronously for a refused token, and authenticate rejects with the same reason', async () => {
    const { handler, token } = await staticHandler(key);
    const expired = await token({ exp: 1 });
    expect(thrown(() => nowOf(handler)(expired))).toMatchObject(failure('token_expired'));
    await expect(handler.authenticate(bearer(expired))).rejects.toMatchObject(failure('token_expired'));
    expect(thrown(() => nowOf(handler)('not.a.jwt'))).toMatchObject(failure('token_malformed'));
  });

  it('stays synchronous with a synchronous isRevoked, and becomes a Promise with an asynchronous one', async () => {
    const sync = await staticHandler(key, {}, { isRevoked: (_context: AuthContext, claims) => claims.jti === 'gone' });
    expect(isPromiseLike(nowOf(sync.handler)(await sync.token({ jti: 'kept' })) as never)).toBe(false);
    const gone = await sync.token({ jti: 'gone' });
    expect(thrown(() => nowOf(sync.handler)(gone))).toMatchObject(failure('token_revoked'));
    const later = await staticHandler(key, {}, { isRevoked: async () => false });
    const answer = nowOf(later.handler)(await later.token());
    expect(isPromiseLike(answer as never)).toBe(true);
    await expect(answer).resolves.toMatchObject({ userId: 'user-1' });
  });
});
