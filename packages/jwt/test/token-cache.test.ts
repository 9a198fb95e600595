import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AuthHandler } from '@authlayer/core';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import { createJwtHandler, TOKEN_CACHE_DEFAULTS } from '../src/index.js';
import { createTokenCache, type TokenCache } from '../src/token-cache.js';
import { bearer, failure, jwtConfig, NOW, validClaims } from './fixtures.js';

const LEEWAY = 30;
const at = (seconds: number, ms = 0): number => seconds * 1000 + ms;
const times = (exp: number, nbf?: number, iat?: number) => ({ exp, nbf, iat });
type Times = ReturnType<typeof times>;
/** A token is stored on its second verification (the doorkeeper): verify it twice. */
const remember = <V>(cache: TokenCache<V>, token: string, value: V, t: Times, nowMs: number) => {
  cache.set(token, value, t, nowMs);
  cache.set(token, value, t, nowMs);
};

describe('createTokenCache', () => {
  it('has documented defaults', () => {
    expect(TOKEN_CACHE_DEFAULTS).toEqual({ maxEntries: 1024, maxAgeMs: 300_000, maxTokenChars: 1_048_576 });
  });

  it('serves an entry until exp + leeway, to the millisecond, then drops it', () => {
    const cache = createTokenCache<string>(LEEWAY);
    expect(cache.get('t', at(NOW))).toBeUndefined();
    remember(cache, 't', 'ctx', times(NOW + 100), at(NOW));
    expect(cache.get('t', at(NOW + 129, 999))).toBe('ctx');
    expect(cache.get('t', at(NOW + 130))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never serves before nbf − leeway or iat − leeway (a clock that went back)', () => {
    const cache = createTokenCache<string>(LEEWAY);
    remember(cache, 'nbf', 'a', times(NOW + 600, NOW + 100), at(NOW + 100));
    remember(cache, 'iat', 'b', times(NOW + 600, undefined, NOW + 100), at(NOW + 100));
    expect(cache.get('nbf', at(NOW + 70))).toBe('a');
    expect(cache.get('iat', at(NOW + 70))).toBe('b');
    expect(cache.get('nbf', at(NOW + 69, 999))).toBeUndefined();
    expect(cache.get('iat', at(NOW + 69, 999))).toBeUndefined();
  });

  it('serves nothing at a clock that is not a usable time, as a fresh verification refuses then', () => {
    const cache = createTokenCache<string>(LEEWAY);
    for (const clock of [Number.NaN, -Infinity, -9e15, 9e15]) {
      remember(cache, 't', 'ctx', times(NOW + 100), at(NOW));
      expect(cache.get('t', clock)).toBeUndefined();
    }
    remember(cache, 't', 'ctx', times(NOW + 100), at(NOW));
    expect(cache.get('t', at(NOW))).toBe('ctx');
  });

  it('serves an entry for at most maxAgeMs after its verification, whatever its exp', () => {
    const cache = createTokenCache<string>(0, { maxAgeMs: 1000 });
    remember(cache, 't', 'ctx', times(Infinity), at(NOW));
    expect(cache.get('t', at(NOW, 999))).toBe('ctx');
    expect(cache.get('t', at(NOW + 1))).toBeUndefined();
  });

  it('drops the least recently used entry beyond maxEntries', () => {
    const cache = createTokenCache<string>(0, { maxEntries: 2 });
    remember(cache, 'a', 'A', times(NOW + 60), at(NOW));
    remember(cache, 'b', 'B', times(NOW + 60), at(NOW));
    expect(cache.get('a', at(NOW))).toBe('A');
    remember(cache, 'c', 'C', times(NOW + 60), at(NOW));
    expect([cache.get('a', at(NOW)), cache.get('b', at(NOW)), cache.get('c', at(NOW))]).toEqual(['A', undefined, 'C']);
    remember(cache, 'c', 'C2', times(NOW + 60), at(NOW)); // verified again (two requests raced): replaced
    expect([cache.size, cache.get('c', at(NOW))]).toEqual([2, 'C2']);
  });

  it('keeps a token used within the last maxEntries verifications, and drops one that was not', () => {
    const cache = createTokenCache<string>(0, { maxEntries: 8 });
    remember(cache, 'kept', 'K', times(NOW + 60), at(NOW));
    remember(cache, 'idle', 'I', times(NOW + 60), at(NOW));
    for (let i = 0; i < 100; i += 1) {
      remember(cache, `other-${i}`, 'O', times(NOW + 60), at(NOW));
      // A hit every fifth token: moved to the end only once it has aged past half the cache.
      if (i % 5 === 4) expect(cache.get('kept', at(NOW))).toBe('K');
    }
    expect([cache.get('kept', at(NOW)), cache.get('idle', at(NOW)), cache.size]).toEqual(['K', undefined, 8]);
  });

  it('serves a token only for itself when another ends alike, and the later one takes the place', () => {
    const cache = createTokenCache<string>(0);
    const end = '.' + 's'.repeat(40);
    remember(cache, `first${end}`, 'F', times(NOW + 60), at(NOW));
    expect(cache.get(`other${end}`, at(NOW))).toBeUndefined();
    expect(cache.get(`first${end}`, at(NOW))).toBe('F');
    remember(cache, `later${end}`, 'L', times(NOW + 60), at(NOW));
    expect([cache.get(`first${end}`, at(NOW)), cache.get(`later${end}`, at(NOW)), cache.size]).toEqual([
      undefined,
      'L',
      1,
    ]);
  });

  it('stays bounded under a flood of distinct tokens, in count and in characters', () => {
    const cache = createTokenCache<number>(0);
    for (let i = 0; i < 10_000; i += 1) remember(cache, `token-${i}`, i, times(NOW + 60), at(NOW));
    expect(cache.size).toBe(1024);
    expect(cache.get('token-0', at(NOW))).toBeUndefined();
    expect(cache.get('token-9999', at(NOW))).toBe(9999);
    const big = createTokenCache<number>(0);
    for (let i = 0; i < 300; i += 1) remember(big, `${'x'.repeat(8186)}-${i}`, i, times(NOW + 60), at(NOW));
    expect(big.size).toBe(128);
    remember(big, 'x'.repeat(TOKEN_CACHE_DEFAULTS.maxTokenChars + 1), 0, times(NOW + 60), at(NOW));
    expect(big.size).toBe(128);
  });

  it('stores a token on its second verification, so a round-robin of many tokens does not churn it', () => {
    const cache = createTokenCache<number>(0);
    cache.set('once', 1, times(NOW + 60), at(NOW));
    expect(cache.get('once', at(NOW))).toBeUndefined();
    cache.set('once', 1, times(NOW + 60), at(NOW));
    expect(cache.get('once', at(NOW))).toBe(1);
    const pool = Array.from({ length: 10_000 }, (_, i) => `header.payload.signature-${i}-${(i * 7919) % 10_007}`);
    for (const round of [1, 2, 3]) for (const token of pool) cache.set(token, round, times(NOW + 60), at(NOW));
    // Each comes back after 9 999 others, so it would miss a 1024-entry LRU: none is stored.
    expect(cache.size).toBe(1);
    // 1000 tokens in turn come back within the window: most are stored (fingerprint slots collide).
    for (const round of [1, 2])
      for (const token of pool.slice(0, 1000)) cache.set(token, round, times(NOW + 60), at(NOW));
    expect(cache.size).toBeGreaterThan(850);
  });

  it('stores nothing with maxEntries 0, and refuses bounds that are not non-negative integers', () => {
    const off = createTokenCache<string>(0, { maxEntries: 0 });
    remember(off, 't', 'ctx', times(NOW + 60), at(NOW));
    expect(off.get('t', at(NOW))).toBeUndefined();
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() => createTokenCache(0, { maxEntries: bad })).toThrow(TypeError);
      expect(() => createTokenCache(0, { maxAgeMs: bad })).toThrow(TypeError);
    }
  });
});

describe('the cache inside the handler', () => {
  let key: SigningKey;
  let jwks: JwksServer;
  const clock = { ms: at(NOW) };
  const handlerFor = (tokenCache: { maxEntries?: number; maxAgeMs?: number }, jwt: Record<string, unknown>) =>
    createJwtHandler(jwtConfig({ algorithms: ['ES256'], leeway_seconds: LEEWAY, ...jwt }), {
      env: { JWT_KEY: key.envValue },
      logger: createCaptureLogger(),
      now: () => clock.ms,
      jwks: { cooldownMs: 0, cacheMaxAgeMs: 0, timeoutMs: 2000 },
      tokenCache,
    });
  const answer = (handler: AuthHandler, token: string) =>
    handler.authenticate(bearer(token)).then(
      (context) => `ok ${context.userId}`,
      (error: { reason: string }) => error.reason,
    );

  beforeAll(async () => {
    key = await createSigningKey('ES256');
    jwks = await startJwksServer([key.publicJwk]);
  });
  afterAll(() => jwks.close());

  it('answers exactly as an uncached handler at every instant, forwards and backwards in time', async () => {
    const cached = await handlerFor({}, { public_key_env: 'JWT_KEY' });
    const uncached = await handlerFor({ maxEntries: 0 }, { public_key_env: 'JWT_KEY' });
    const tokens = await Promise.all(
      [
        validClaims({ exp: NOW + 5 }),
        validClaims({ exp: NOW + 40, nbf: NOW + 35 }),
        validClaims({ exp: NOW + 90, iat: NOW + 50 }),
      ].map((claims) => mintToken(key, claims)),
    );
    const instants = Array.from({ length: 161 }, (_, i) => at(NOW - 20) + i * 750);
    const outcomes = new Set<string>();
    for (const ms of [...instants, ...instants.reverse()]) {
      clock.ms = ms;
      for (const token of tokens) {
        const [mine, reference] = [await answer(cached, token), await answer(uncached, token)];
        expect({ ms, answer: mine }).toEqual({ ms, answer: reference });
        outcomes.add(mine);
      }
    }
    expect([...outcomes].sort()).toEqual(['ok user-1', 'token_expired', 'token_not_yet_valid']);
  });

  it('honours a key removed from the JWKS for at most maxAgeMs through the cache, then refuses', async () => {
    clock.ms = at(NOW);
    const handler = await handlerFor({ maxAgeMs: 60_000 }, { jwks_url: jwks.url });
    const token = await mintToken(key, validClaims({ exp: NOW + 3600 }));
    expect(await answer(handler, token)).toBe('ok user-1');
    expect(await answer(handler, token)).toBe('ok user-1'); // the second verification stores it
    jwks.setKeys([]);
    clock.ms = at(NOW + 59);
    expect(await answer(handler, token)).toBe('ok user-1');
    expect(jwks.hits).toBe(2); // the third request was answered by the cache
    clock.ms = at(NOW + 60);
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('signature_invalid'));
  });
});
