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
      proxy: null,
      listen: null,
    });
  });

  it('takes the proxy whose header style is read, and a listener of its own', () => {
    const config = (forwardAuth: object) => parseAuthConfig({ auth: {}, forward_auth: forwardAuth }).forwardAuth;
    expect(config({ enabled: true, proxy: 'nginx', listen: '127.0.0.1:9091' })).toMatchObject({
      proxy: 'nginx',
      listen: { host: '127.0.0.1', port: 9091 },
    });
    expect(config({ proxy: 'traefik', listen: '[::1]:0' })).toMatchObject({
      proxy: 'traefik',
      listen: { host: '::1', port: 0 },
    });
    expect(config({ listen: 'localhost:80' }).listen).toEqual({ host: 'localhost', port: 80 });
  });

  it('takes the identity headers as written, in place of the defaults', () => {
    const config = parseAuthConfig({
      auth: {},
      forward_auth: { enabled: true, identity_headers: { 'X-User': 'userId', 'X-Scopes': 'scopes' } },
    });
    expect(config.forwardAuth).toEqual({
      enabled: true,
      identityHeaders: { 'X-User': 'userId', 'X-Scopes': 'scopes' },
      proxy: null,
      listen: null,
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
    [{ proxy: 'haproxy' }, 'forward_auth.proxy', /must be one of: nginx, traefik/],
    [{ listen: '9091' }, 'forward_auth.listen', /must be host:port/],
    [{ listen: '127.0.0.1:70000' }, 'forward_auth.listen', /port of at most 65535/],
    [{ listen: 'http://127.0.0.1:9091' }, 'forward_auth.listen', /must be host:port/],
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
