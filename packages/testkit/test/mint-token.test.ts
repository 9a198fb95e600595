import { describe, expect, it } from '@jest/globals';
import { createSigningKey, forgeToken, mintToken, signRaw } from '../src/index.js';
import { compactVerify, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

describe('createSigningKey and mintToken', () => {
  it.each(['RS256', 'ES384', 'HS512'] as const)('makes %s tokens that verify with the public material', async (alg) => {
    const key = await createSigningKey(alg);
    const token = await mintToken(key, { sub: 'u-1' }, { extra: 1 });
    expect(decodeProtectedHeader(token)).toEqual({ alg, typ: 'JWT', kid: key.kid, extra: 1 });
    const { payload } = await jwtVerify(token, await importJWK(key.publicJwk, alg));
    expect(payload).toEqual({ sub: 'u-1' });
  });

  it('leaves kid out when asked, and uses the given kid', async () => {
    expect((await createSigningKey('ES256', { kid: null })).kid).toBeUndefined();
    const key = await createSigningKey('ES256', { kid: null });
    expect(decodeProtectedHeader(await mintToken(key, {}))).toEqual({ alg: 'ES256', typ: 'JWT' });
    expect((await createSigningKey('ES256', { kid: 'mine' })).publicJwk.kid).toBe('mine');
  });
});

describe('signRaw and forgeToken', () => {
  it('signs any payload, also with an unknown crit', async () => {
    const key = await createSigningKey('HS256');
    const token = await signRaw(key.signingKey, { alg: 'HS256', crit: ['x-ext'], 'x-ext': 1 }, [1, 2]);
    const { payload } = await compactVerify(token, key.signingKey, { crit: { 'x-ext': true } });
    expect(new TextDecoder().decode(payload)).toBe('[1,2]');
    const plain = await signRaw(key.signingKey, { alg: 'HS256' }, 'raw');
    expect(new TextDecoder().decode((await compactVerify(plain, key.signingKey)).payload)).toBe('raw');
  });

  it('joins base64url segments without signing', () => {
    expect(forgeToken({ alg: 'none' }, 'not json')).toBe(
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('not json').toString('base64url')}.`,
    );
    expect(forgeToken({}, {}, 'sig').endsWith('.sig')).toBe(true);
  });
});
