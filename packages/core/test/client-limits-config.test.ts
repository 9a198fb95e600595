import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import { compileRouteKey } from '../src/config/access-schema.js';

const RATE_LIMIT = { requests_per_minute: 10 };
const issuesOf = (raw: unknown) => {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    return (error as ConfigError).issues;
  }
  throw new Error('accepted');
};

describe('per-client limits of api_keys.keys', () => {
  it('gives every entry of a client the limits that one of them says, and null where none does', () => {
    const config = parseAuthConfig({
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
    expect(config.apiKeys.format).toBe('checksummed');
    expect(config.apiKeys.keyPrefixes).toEqual(['sk_live']);
    expect(config.apiKeys.keys?.map(({ requestsPerMinute, quota }) => ({ requestsPerMinute, quota }))).toEqual([
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

  it('refuses a key prefix that is not a letter, then letters, digits and _', () => {
    expect(issuesOf({ auth: { api_keys: { format: 'checksummed', key_prefixes: ['sk-live'] } } })).toEqual([
      {
        path: 'auth.api_keys.key_prefixes[0]',
        message: 'must be a letter, then letters, digits and _ (at most 32 characters)',
      },
    ]);
  });
});

describe('route keys', () => {
  it('keeps an empty splat segment as Express does, and the root pattern as it is', () => {
    expect(compileRouteKey('GET /files/*path').matchPath('/files/a//b')).toEqual({ path: ['a', '', 'b'] });
    expect(compileRouteKey('GET /').matchPath('/')).toEqual({});
    expect(compileRouteKey('GET /a/').matchPath('/a')).toEqual({});
  });
});
