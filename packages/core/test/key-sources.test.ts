import { describe, expect, it } from '@jest/globals';
import { describeKeySources } from '../src/config/key-sources.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

describe('describeKeySources', () => {
  it.each([
    [{ auth: { mode: 'api_key' } }, 'environment variable SERVICE_API_KEY'],
    [{ auth: { api_keys: { prefix: 'prod' } } }, 'environment variable PROD_API_KEY'],
    [{ auth: { api_keys: { enabled: false } } }, 'none (auth.api_keys.enabled is false)'],
    [{ auth: { api_keys: { keys: [{ name: 'a', env_var: 'A' }] } } }, 'auth.api_keys.keys (1 key of 1 client)'],
    [
      {
        auth: {
          api_keys: {
            keys: [
              { name: 'a', env_var: 'A' },
              { name: 'a', hash_env: 'B' },
              { name: 'b', env_var: 'C' },
            ],
          },
        },
      },
      'auth.api_keys.keys (3 keys of 2 clients)',
    ],
    [{ auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_PEM' } } }, 'environment variable JWT_PEM'],
    [
      { auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example/jwks?token=hunter2' } } },
      'jwks_url https://idp.example/jwks?token=redacted',
    ],
    [
      {
        auth: {
          mode: 'oauth2',
          oauth2: { introspection_url: 'https://sso.example/introspect?k=hunter2', client_id: 'api' },
        },
      },
      'introspection at https://sso.example/introspect?k=redacted, client secret from environment variable OAUTH2_CLIENT_SECRET',
    ],
    [
      {
        auth: {
          mode: 'oauth2',
          oauth2: { issuer: 'https://sso.example', discovery: true, client_id: 'api', client_secret_env: 'S' },
        },
      },
      'introspection at the discovery document of https://sso.example/, client secret from environment variable S',
    ],
    [
      { auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'PEM' } } },
      'api_key: environment variable SERVICE_API_KEY; jwt: environment variable PEM',
    ],
  ])('%j → %s', (raw, said) => {
    expect(describeKeySources(parseAuthConfig(raw))).toBe(said);
  });
});
