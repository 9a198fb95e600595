import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

describe('revocation', () => {
  it('is absent by default, and keeps its store', () => {
    expect(parseAuthConfig({ auth: {} }).revocation).toBeNull();
    for (const store of ['redis://127.0.0.1:6379/0', 'rediss://:secret@redis.internal:6380/2']) {
      expect(parseAuthConfig({ auth: {}, revocation: { store } }).revocation).toEqual({ store });
    }
  });

  it.each([
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
