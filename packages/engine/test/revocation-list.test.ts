import { describe, expect, it } from '@jest/globals';
import { createAuthContext } from '@authlayer/core';
import { checkRevocationEntry, checkRevocationTtl, REVOCATION_TTL } from '../src/index.js';
import { importWithPeers } from '../src/optional-peers.js';
import { parseChange, pairsOf } from '../src/revocation/revocation-commands.js';
import { createRevocationList } from '../src/revocation/revocation-list.js';

const T = 1_800_000_000_000;
const ada = createAuthContext({ method: 'jwt', userId: 'ada', claims: { sub: 'ada', jti: 't-1' } });
// The claims mapping reads another claim than sub for userId.
const mapped = createAuthContext({ method: 'jwt', userId: 'ada@example.com', claims: { sub: 'u-7', jti: 't-2' } });
const client = createAuthContext({ method: 'api_key', userId: 'billing' });
const anonymous = createAuthContext({ method: 'none' });

describe('createRevocationList', () => {
  it('revokes by sub (userId or the sub claim) and by jti, until the entry ends', () => {
    const list = createRevocationList();
    expect(list.isRevoked(ada, T)).toBe(false);
    list.apply('sub:billing', T + 1000);
    list.apply('jti:t-1', T + 1000);
    list.apply('sub:u-7', T + 1000);
    expect([ada, mapped, client, anonymous].map((context) => list.isRevoked(context, T))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    // At its end an entry no longer counts, and is dropped.
    expect(list.isRevoked(client, T + 999)).toBe(true);
    expect(list.isRevoked(client, T + 1000)).toBe(false);
    expect(list.size).toBe(2);
    list.apply('jti:t-1', null);
    expect(list.isRevoked(ada, T)).toBe(false);
  });

  it('a context whose sub claim is its userId, or that has no jti, is asked once by sub', () => {
    const list = createRevocationList();
    list.apply('sub:someone-else', T + 1000);
    const noJti = createAuthContext({ method: 'oauth2', userId: 'ada', claims: { sub: 'ada', jti: 7 } });
    expect([ada, noJti, mapped].map((context) => list.isRevoked(context, T))).toEqual([false, false, false]);
  });

  it('a full load replaces the list, then the changes told meanwhile apply again on top of it', () => {
    const list = createRevocationList();
    list.apply('sub:billing', T + 1000);
    list.beginLoad();
    // Told while the snapshot was on its way: one the snapshot holds, one it missed.
    list.apply('jti:t-1', T + 1000);
    list.apply('sub:u-7', null);
    list.finishLoad([
      ['jti:t-1', T + 1000],
      ['sub:u-7', T + 1000],
    ]);
    expect([ada, mapped, client].map((context) => list.isRevoked(context, T))).toEqual([true, false, false]);
    // A load that failed leaves the list as it was, and no longer records changes.
    list.beginLoad();
    list.abortLoad();
    list.finishLoad([]);
    expect(list.size).toBe(0);
  });
});

describe('revocation entries and messages', () => {
  it('checks entries and ttls', () => {
    expect(checkRevocationEntry('sub:ada')).toBe('sub:ada');
    expect(checkRevocationEntry('jti:a b/c')).toBe('jti:a b/c');
    for (const bad of ['ada', 'sub:', 'iss:x', 'sub:a\nb', `sub:${'x'.repeat(1025)}`, 7]) {
      expect(() => checkRevocationEntry(bad)).toThrow(TypeError);
    }
    expect(checkRevocationTtl(undefined)).toBe(REVOCATION_TTL.defaultSeconds);
    expect(checkRevocationTtl(REVOCATION_TTL.maxSeconds)).toBe(2_592_000);
    for (const bad of [0, 1.5, REVOCATION_TTL.maxSeconds + 1, '60']) {
      expect(() => checkRevocationTtl(bad)).toThrow(TypeError);
    }
  });

  it('reads the messages it publishes, and ignores anything else', () => {
    expect(parseChange('{"entry":"sub:ada","until":5}')).toEqual({ entry: 'sub:ada', until: 5 });
    expect(parseChange('{"entry":"sub:ada","until":null}')).toEqual({ entry: 'sub:ada', until: null });
    for (const other of ['nope', 'null', '{"entry":1,"until":5}', '{"entry":"sub:a","until":"5"}']) {
      expect(parseChange(other)).toBeNull();
    }
    expect(pairsOf(['sub:a', '5', 'jti:b', '7'])).toEqual([
      ['sub:a', 5],
      ['jti:b', 7],
    ]);
  });
});

describe('importWithPeers', () => {
  it('names a missing optional peer at the config path; passes other failures on', async () => {
    const missing = Object.assign(new Error("Cannot find package 'ioredis' imported from x"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(importWithPeers(() => Promise.reject(missing), ['ioredis'], 'revocation.store')).rejects.toMatchObject(
      {
        name: 'ConfigError',
        message:
          'revocation.store: needs the package ioredis, which is not installed: install ioredis in the app (optional peers of @authlayer/engine, which every adapter uses)',
      },
    );
    const broken = new Error('broken');
    await expect(importWithPeers(() => Promise.reject(broken), ['ioredis'], 'revocation.store')).rejects.toBe(broken);
  });
});
