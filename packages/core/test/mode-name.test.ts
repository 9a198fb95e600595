import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';
import { defaultSectionKey, isExternalModeName, modeNameIssue } from '../src/config/mode-name.js';
import { ConfigError } from '../src/config/config-error.js';

describe('auth.mode: a mode package outside this repository', () => {
  it.each(['hmac', 'mtls_pinned', 'my-mode', '@acme/authlayer-hmac'])(
    'takes %s as the name of a mode package',
    (mode) => {
      expect(modeNameIssue(mode)).toBeUndefined();
      expect(isExternalModeName(mode)).toBe(true);
    },
  );

  it.each(['api_key', 'jwt', 'oauth2'])('is not an outside package for the known mode %s', (mode) => {
    expect(isExternalModeName(mode)).toBe(false);
  });

  it('keeps the sections core does not know as written, for the package to check', () => {
    const raw = { auth: { mode: ['api_key', 'hmac'], hmac: { secret_env: 'HMAC_SECRET', extra: [1] } } };
    const config = parseAuthConfig(raw);
    expect(config.modes).toEqual(['api_key', 'hmac']);
    expect(config.modeSections).toEqual({ hmac: { secret_env: 'HMAC_SECRET', extra: [1] } });
    // A copy, frozen with the config: the caller's object is left as it was.
    expect(Object.isFrozen(config.modeSections?.hmac)).toBe(true);
    expect(Object.isFrozen(raw.auth.hmac)).toBe(false);
  });

  it('still checks the sections core owns beside a mode package', () => {
    expect(() => parseAuthConfig({ auth: { mode: ['hmac'] }, rate_limit: { requests_per_minute: 0 } })).toThrow(
      new ConfigError([{ path: 'rate_limit.requests_per_minute', message: 'must be at least 1' }]),
    );
  });

  it('keeps each built-in mode section as written too: its package checks it, not core', () => {
    const written = {
      api_keys: { header: '', env_var: 5 },
      jwt: { leeway_seconds: 301 },
      oauth2: { cache_seconds: -1 },
    };
    const config = parseAuthConfig({ auth: { mode: ['hmac'], ...written } });
    expect(config.modeSections).toEqual(written);
    for (const key of ['apiKeys', 'jwt', 'oauth2']) expect(config).not.toHaveProperty(key);
  });

  it('keeps an unknown auth key without a mode package, for the engine to refuse when no mode reads it', () => {
    const config = parseAuthConfig({ auth: { mode: 'jwt', hmac: {}, jwt: { jwks_url: 'https://a/jwks' } } });
    expect(config.modeSections).toEqual({ hmac: {}, jwt: { jwks_url: 'https://a/jwks' } });
  });

  it('gives a config that writes no mode section the shape it always had (no modeSections)', () => {
    expect(parseAuthConfig({ auth: { mode: 'api_key' } })).not.toHaveProperty('modeSections');
    expect(parseAuthConfig({ auth: { mode: ['jwt', 'oauth2'] } })).not.toHaveProperty('modeSections');
  });

  it('reads auth.<name> by default, without a package scope', () => {
    expect(defaultSectionKey('hmac')).toBe('hmac');
    expect(defaultSectionKey('@acme/hmac')).toBe('hmac');
  });
});
