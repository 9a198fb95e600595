import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

const withOps = (fields: Record<string, unknown>) => ({ auth: { mode: 'api_key' }, ...fields });

describe('parseAuthConfig: rate_limit and metrics (Operations)', () => {
  it('leaves rate limits off and metrics off by default', () => {
    const config = parseAuthConfig(withOps({}));
    expect(config.rateLimit).toBeNull();
    expect(config.metrics).toBe(false);
  });

  it('fills the defaults of an empty rate_limit section', () => {
    expect(parseAuthConfig(withOps({ rate_limit: {} })).rateLimit).toEqual({
      requestsPerMinute: null,
      failedAuthPerMinute: null,
      store: 'memory',
      trustProxy: false,
    });
  });

  it("converts the contract's example once to camelCase", () => {
    const rateLimit = {
      requests_per_minute: 600,
      failed_auth_per_minute: 20,
      store: 'redis://127.0.0.1:6379/0',
      trust_proxy: true,
    };
    const config = parseAuthConfig(withOps({ rate_limit: rateLimit, metrics: true }));
    expect(config.rateLimit).toEqual({
      requestsPerMinute: 600,
      failedAuthPerMinute: 20,
      store: 'redis://127.0.0.1:6379/0',
      trustProxy: true,
    });
    expect(config.metrics).toBe(true);
  });

  it.each([0, 2, 16])('accepts trust_proxy %d (proxies in front)', (hops) => {
    expect(parseAuthConfig(withOps({ rate_limit: { trust_proxy: hops } })).rateLimit?.trustProxy).toBe(hops);
  });

  it.each([
    [
      'requests_per_minute 0',
      { rate_limit: { requests_per_minute: 0 } },
      'rate_limit.requests_per_minute',
      'must be at least 1',
    ],
    [
      'failed_auth_per_minute 1.5',
      { rate_limit: { failed_auth_per_minute: 1.5 } },
      'rate_limit.failed_auth_per_minute',
      'must be an integer, not a fraction',
    ],
    [
      'store http://',
      { rate_limit: { store: 'http://x' } },
      'rate_limit.store',
      'must be memory or a redis:// (or rediss://) URL',
    ],
    [
      'trust_proxy "yes"',
      { rate_limit: { trust_proxy: 'yes' } },
      'rate_limit.trust_proxy',
      'must be a boolean (true or false) or a number, not a string',
    ],
    [
      'trust_proxy 17',
      { rate_limit: { trust_proxy: 17 } },
      'rate_limit.trust_proxy',
      'must be true, false or a number of proxies (0 to 16)',
    ],
    ['unknown field', { rate_limit: { per_second: 1 } }, 'rate_limit.per_second', 'unknown field'],
    ['metrics "1"', { metrics: '1' }, 'metrics', 'must be a boolean (true or false), not a string'],
  ])('refuses %s, naming the field', (_name, fields, path, message) => {
    let error: unknown;
    try {
      parseAuthConfig(withOps(fields));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([{ path, message }]);
  });
});
