import { describe, expect, it } from '@jest/globals';
import {
  AuthError,
  createAuthContext,
  createNoAuthHandler,
  fromAuthenticateNow,
  type AuthHandler,
} from '../src/index.js';
import { authenticateNowOf, isPromiseLike } from '../src/internal.js';

const ADA = createAuthContext({ method: 'api_key', userId: 'ada' });
const REFUSED = new AuthError('credentials_invalid', 'ApiKey realm="authlayer"');

describe('fromAuthenticateNow', () => {
  it('answers a synchronous identity now, and the same identity as a resolved Promise', async () => {
    const handler = fromAuthenticateNow(() => ADA);
    expect(handler.authenticateNow({ headers: {} })).toBe(ADA);
    const promised = handler.authenticate({ headers: {} });
    expect(promised).toBeInstanceOf(Promise);
    await expect(promised).resolves.toBe(ADA);
  });

  it('throws an AuthError now, and rejects with the same error (never a throw) from authenticate', async () => {
    const handler = fromAuthenticateNow(() => {
      throw REFUSED;
    });
    expect(() => handler.authenticateNow({ headers: {} })).toThrow(REFUSED);
    await expect(handler.authenticate({ headers: {} })).rejects.toBe(REFUSED);
  });

  it('hands a Promise on unchanged (the asynchronous path: remote keys, introspection)', async () => {
    const later = Promise.resolve(ADA);
    const handler = fromAuthenticateNow(() => later);
    expect(handler.authenticateNow({ headers: {} })).toBe(later);
    await expect(handler.authenticate({ headers: {} })).resolves.toBe(ADA);
  });
});

describe('authenticateNowOf', () => {
  it('prefers authenticateNow, and falls back to authenticate for a handler without it', async () => {
    const now = authenticateNowOf({ method: 'api_key', ...fromAuthenticateNow(() => ADA) });
    expect(now({ headers: {} })).toBe(ADA);
    const asyncOnly: AuthHandler = { method: 'api_key', authenticate: () => Promise.resolve(ADA) };
    const answer = authenticateNowOf(asyncOnly)({ headers: {} });
    expect(isPromiseLike(answer)).toBe(true);
    await expect(answer).resolves.toBe(ADA);
  });

  it('the no-auth handler answers synchronously with the anonymous context', () => {
    expect(authenticateNowOf(createNoAuthHandler())({ headers: {} })).toEqual(createAuthContext({ method: 'none' }));
  });
});

describe('isPromiseLike', () => {
  it('is true for Promises and thenables only', () => {
    expect(isPromiseLike(Promise.resolve(ADA))).toBe(true);
    expect(isPromiseLike({ then: () => undefined } as unknown as Promise<never>)).toBe(true);
    expect(isPromiseLike(ADA)).toBe(false);
    expect(isPromiseLike(null as never)).toBe(false);
  });
});
