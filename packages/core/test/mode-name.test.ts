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

  it('still checks the sections core knows beside a mode package', () => {
    expect(() => parseAuthConfig({ auth: { mode: ['hmac'], api_keys: { header: '' } } })).toThrow(
      new ConfigError([{ path: 'auth.api_keys.header', message: 'must not be empty' }]),
    );
  });

  it('refuses an unknown auth key when no mode package is named, as before', () => {
    expect(() => parseAuthConfig({ auth: { mode: 'jwt', hmac: {}, jwt: { jwks_url: 'https://a/jwks' } } })).toThrow(
      new ConfigError([{ path: 'auth.hmac', message: 'unknown field' }]),
    );
  });

  it('gives a config without a mode package the shape it always had (no modeSections)', () => {
    expect(parseAuthConfig({ auth: { mode: 'api_key' } })).not.toHaveProperty('modeSections');
  });

  it('reads auth.<name> by default, without a package scope', () => {
    expect(defaultSectionKey('hmac')).toBe('hmac');
    expect(defaultSectionKey('@acme/hmac')).toBe('hmac');
  });
});
