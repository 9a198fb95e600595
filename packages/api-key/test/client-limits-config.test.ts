import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseAuthConfig } from '@authlayer/core';
import { apiKeysOf, configSchema } from '../src/config/api-keys-section.js';
import { issuesOf, settingsOf } from './settings-of.js';

const RATE_LIMIT = { requests_per_minute: 10 };

describe('per-client limits of api_keys.keys', () => {
  it('gives every entry of a client the limits that one of them says, and null where none does', () => {
    const config = settingsOf({
      auth: {
        api_keys: {
          format: 'checksummed',
          key_prefixes: ['sk_live'],
          keys: [
            { name: 'billing', env_var: 'OLD', requests_per_minute: 1200 },
            { name: 'billing', env_var: 'NEW', quota: { requests: 100, per: 'month' } },
            { name: 'plain', env_var: 'PLAIN' },
          ],
        },
      },
      rate_limit: RATE_LIMIT,
    });
    expect(config.format).toBe('checksummed');
    expect(config.keyPrefixes).toEqual(['sk_live']);
    expect(config.keys?.map(({ requestsPerMinute, quota }) => ({ requestsPerMinute, quota }))).toEqual([
      { requestsPerMinute: 1200, quota: { requests: 100, per: 'month' } },
      { requestsPerMinute: 1200, quota: { requests: 100, per: 'month' } },
      { requestsPerMinute: null, quota: null },
    ]);
  });

  it('refuses entries of one client that disagree on their limits', () => {
    const issues = issuesOf({
      auth: {
        api_keys: {
          keys: [
            { name: 'b', env_var: 'A', requests_per_minute: 5, quota: { requests: 1, per: 'day' } },
            { name: 'b', env_var: 'B', requests_per_minute: 6, quota: { requests: 2, per: 'day' } },
          ],
        },
      },
      rate_limit: RATE_LIMIT,
    });
    expect(issues).toEqual([
      {
        path: 'auth.api_keys.keys[1].requests_per_minute',
        message: 'differs from keys[0].requests_per_minute (entries of one name are one client)',
      },
      {
        path: 'auth.api_keys.keys[1].quota',
        message: 'differs from keys[0].quota (entries of one name are one client)',
      },
    ]);
  });

  it('needs the top-level rate_limit, whose store counts them', () => {
    expect(
      issuesOf({ auth: { api_keys: { keys: [{ name: 'b', env_var: 'A', quota: { requests: 1, per: 'week' } }] } } }),
    ).toContainEqual({ path: 'auth.api_keys.keys[0].quota.per', message: 'must be one of: day, month' });
    expect(issuesOf({ auth: { api_keys: { keys: [{ name: 'b', env_var: 'A', requests_per_minute: 5 }] } } })).toEqual([
      {
        path: 'auth.api_keys.keys[0].requests_per_minute',
        message: "needs the top-level rate_limit (its store counts the client's requests)",
      },
    ]);
  });

  it('needs it also for a section the engine checked (configSchema cannot see rate_limit)', () => {
    const checked = configSchema['~standard'].validate({ keys: [{ name: 'b', env_var: 'A', requests_per_minute: 5 }] });
    if (checked.issues !== undefined) throw new Error('the section was refused');
    const section = checked.value;
    expect(() => apiKeysOf(parseAuthConfig({ auth: {} }), { section })).toThrow(
      new ConfigError({
        path: 'auth.api_keys.keys[0].requests_per_minute',
        message: "needs the top-level rate_limit (its store counts the client's requests)",
      }),
    );
    expect(apiKeysOf(parseAuthConfig({ auth: {}, rate_limit: RATE_LIMIT }), { section })).toBe(section);
  });

  it('refuses a key prefix that is not a letter, then letters, digits and _', () => {
    expect(issuesOf({ auth: { api_keys: { format: 'checksummed', key_prefixes: ['sk-live'] } } })).toEqual([
      {
        path: 'auth.api_keys.key_prefixes[0]',
        message: 'must be a letter, then letters, digits and _ (at most 32 characters)',
      },
    ]);
  });
});
