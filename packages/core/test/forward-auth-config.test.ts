import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../src/config/config-error.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

describe('forward_auth', () => {
  it('is off by default, with the default identity headers', () => {
    expect(parseAuthConfig({ auth: {} }).forwardAuth).toEqual({
      enabled: false,
      identityHeaders: {
        'X-Auth-User-Id': 'userId',
        'X-Auth-Method': 'method',
        'X-Auth-Roles': 'roles',
        'X-Auth-Tenant': 'tenantId',
      },
    });
  });

  it('takes the identity headers as written, in place of the defaults', () => {
    const config = parseAuthConfig({
      auth: {},
      forward_auth: { enabled: true, identity_headers: { 'X-User': 'userId', 'X-Scopes': 'scopes' } },
    });
    expect(config.forwardAuth).toEqual({
      enabled: true,
      identityHeaders: { 'X-User': 'userId', 'X-Scopes': 'scopes' },
    });
  });

  it.each([
    [{ identity_headers: { 'X User': 'userId' } }, 'forward_auth.identity_headers.X User', /must be a header name/],
    [
      { identity_headers: { 'X-User': 'password' } },
      'forward_auth.identity_headers.X-User',
      /must be one of: method, userId/,
    ],
    [{ enable: true }, 'forward_auth.enable', /^unknown field \(did you mean enabled\?\)$/],
  ])('refuses %j, naming the field', (forwardAuth, path, message) => {
    try {
      parseAuthConfig({ auth: {}, forward_auth: forwardAuth });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues.find((issue) => issue.path === path)?.message).toMatch(message);
    }
  });
});
