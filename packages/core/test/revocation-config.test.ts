import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

describe('revocation', () => {
  it('is absent by default, and keeps its store', () => {
    expect(parseAuthConfig({ auth: {} }).revocation).toBeNull();
    for (const store of ['redis://127.0.0.1:6379/0', 'rediss://:secret@redis.internal:6380/2']) {
      expect(parseAuthConfig({ auth: {}, revocation: { store } }).revocation).toEqual({ store });
    }
  });

  it("takes Redis Sentinel: the sentinels (host:port) and the primary's name, db 0 unless given", () => {
    const sentinels = ['10.0.0.5:26379', 'sentinel-b.internal:26380', '[::1]:26379'];
    expect(parseAuthConfig({ auth: {}, revocation: { store: { sentinels, name: 'mymaster' } } }).revocation).toEqual({
      store: { sentinels, name: 'mymaster', db: 0 },
    });
    expect(
      parseAuthConfig({ auth: {}, revocation: { store: { sentinels, name: 'mymaster', db: 3 } } }).revocation,
    ).toEqual({ store: { sentinels, name: 'mymaster', db: 3 } });
  });

  it.each([
    {
      name: 'a sentinel without a port',
      raw: { store: { sentinels: ['10.0.0.5'], name: 'mymaster' } },
      path: 'revocation.store.sentinels[0]',
      message: 'must be host:port, for example 10.0.0.5:26379',
    },
    {
      name: 'no sentinels',
      raw: { store: { sentinels: [], name: 'mymaster' } },
      path: 'revocation.store.sentinels',
      message: 'must list at least one sentinel (host:port)',
    },
    {
      name: 'a Sentinel store without its name',
      raw: { store: { sentinels: ['10.0.0.5:26379'] } },
      path: 'revocation.store.name',
      message: 'is required',
    },
    {
      name: 'not redis',
      raw: { store: 'http://redis:6379' },
      path: 'revocation.store',
      message: 'must be a redis:// (or rediss://) URL',
    },
    {
      name: 'no host',
      raw: { store: 'redis://' },
      path: 'revocation.store',
      message: 'must be a redis:// (or rediss://) URL',
    },
    {
      name: 'not a URL',
      raw: { store: 'redis://[::1' },
      path: 'revocation.store',
      message: 'must be a redis:// (or rediss://) URL',
    },
    { name: 'missing', raw: {}, path: 'revocation.store', message: 'is required' },
    {
      name: 'unknown field',
      raw: { store: 'redis://r:6379', ttl: 5 },
      path: 'revocation.ttl',
      message: 'unknown field',
    },
  ])('refuses $name at its path', ({ raw, path, message }) => {
    let thrown: unknown;
    try {
      parseAuthConfig({ auth: {}, revocation: raw });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { issues: unknown[] }).issues).toEqual([{ path, message }]);
  });
});
