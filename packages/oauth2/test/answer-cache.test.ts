import { describe, expect, it } from '@jest/globals';
import { createAuthContext } from '@authlayer/core';
import { createAnswerCache, digestOf } from '../src/answer-cache.js';

const NOW = 1_800_000_000_000;
const context = (userId: string) => createAuthContext({ method: 'oauth2', userId });

describe('createAnswerCache', () => {
  it('keeps an answer cache_seconds, never past exp', () => {
    const cache = createAnswerCache(60);
    cache.set('a', context('a'), null, NOW);
    cache.set('b', context('b'), NOW + 10_000, NOW);
    expect(cache.get('a', NOW + 59_999)?.userId).toBe('a');
    expect(cache.get('a', NOW + 60_000)).toBeUndefined();
    expect(cache.get('b', NOW + 9_999)?.userId).toBe('b');
    expect(cache.get('b', NOW + 10_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing with cache_seconds 0, or an answer already at its exp', () => {
    const off = createAnswerCache(0);
    off.set('a', context('a'), null, NOW);
    expect(off.size).toBe(0);
    const on = createAnswerCache(60);
    on.set('a', context('a'), NOW, NOW);
    expect(on.size).toBe(0);
  });

  it('drops the oldest entry past maxEntries, and a set again moves an entry to the end', () => {
    const cache = createAnswerCache(60, { maxEntries: 2 });
    cache.set('a', context('a'), null, NOW);
    cache.set('b', context('b'), null, NOW);
    cache.set('a', context('a2'), null, NOW);
    cache.set('c', context('c'), null, NOW);
    expect(cache.size).toBe(2);
    expect(cache.get('b', NOW)).toBeUndefined();
    expect(cache.get('a', NOW)?.userId).toBe('a2');
    expect(cache.get('c', NOW)?.userId).toBe('c');
    expect(cache.get('missing', NOW)).toBeUndefined();
  });

  it.each([0, -1, 1.5, NaN])('refuses maxEntries %p', (maxEntries) => {
    expect(() => createAnswerCache(60, { maxEntries })).toThrow(
      new TypeError('answer cache: maxEntries must be a positive integer'),
    );
  });
});

describe('digestOf', () => {
  it('is the base64url SHA-256 of the token, never the token', () => {
    expect(digestOf('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(digestOf('abc')).not.toContain('abc');
  });
});
