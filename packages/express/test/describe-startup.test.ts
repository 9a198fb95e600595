import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey } from '@authlayer/testkit';
import { createAuthMiddleware, describeStartup } from '../src/index.js';

const KEY = 'describe-startup-key';
const PEM = (await createSigningKey('RS256')).envValue;
const make = (config: object, env: Record<string, string> = { SERVICE_API_KEY: KEY }) =>
  createAuthMiddleware(config, { env, logger: createCaptureLogger() });

describe('describeStartup', () => {
  it('names the mode, the handler and the variable, never the key', async () => {
    const line = describeStartup(
      await make({ auth: { mode: 'api_key', api_keys: { prefix: 'prod' } } }, { PROD_API_KEY: KEY }),
    );
    expect(line).toBe('auth.mode api_key, handler api_key, keys from environment variable PROD_API_KEY');
  });

  it('names a jwks_url with its query values redacted', async () => {
    const auth = await make({
      auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example/jwks?access_token=hunter2' } },
    });
    expect(describeStartup(auth)).toBe(
      'auth.mode jwt, handler jwt, keys from jwks_url https://idp.example/jwks?access_token=redacted',
    );
  });

  it('names the issuer for discovery, never "environment variable null"', async () => {
    const auth = await make({ auth: { mode: 'jwt', jwt: { issuer: 'https://idp.example', discovery: true } } });
    expect(describeStartup(auth)).toBe(
      'auth.mode jwt, handler jwt, keys from the discovery document of issuer https://idp.example/',
    );
  });

  it('names every issuer of providers with its key source', async () => {
    const auth = await make(
      {
        auth: {
          mode: 'jwt',
          jwt: {
            providers: [
              { issuer: 'https://sso.example', discovery: true },
              { issuer: 'https://partner.example', jwks_url: 'https://partner.example/jwks?k=hunter2' },
              { issuer: 'https://internal.example', public_key_env: 'INTERNAL_SECRET', algorithms: ['HS256'] },
            ],
          },
        },
      },
      { INTERNAL_SECRET: 'a-shared-secret-of-at-least-thirty-two-bytes!' },
    );
    expect(describeStartup(auth)).toBe(
      'auth.mode jwt, handler jwt, keys from issuer https://sso.example/ (the discovery document of issuer ' +
        'https://sso.example/), issuer https://partner.example/ (jwks_url https://partner.example/jwks?k=redacted), ' +
        'issuer https://internal.example/ (environment variable INTERNAL_SECRET)',
    );
  });

  it.each([
    [{ auth: { api_keys: { keys: [{ name: 'a', env_var: 'A' }] } } }, 'auth.api_keys.keys (1 key of 1 client)'],
    [
      {
        auth: {
          api_keys: {
            keys: [
              { name: 'a', env_var: 'A' },
              { name: 'a', env_var: 'B' },
              { name: 'b', env_var: 'C' },
            ],
          },
        },
      },
      'auth.api_keys.keys (3 keys of 2 clients)',
    ],
    [
      { auth: { mode: 'oauth2', oauth2: { introspection_url: 'https://sso.example/i?k=hunter2', client_id: 'api' } } },
      'introspection at https://sso.example/i?k=redacted, client secret from environment variable OAUTH2_CLIENT_SECRET',
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
  ])('%j: keys from %s', async (config, keys) => {
    const env = {
      SERVICE_API_KEY: KEY,
      A: 'key-a',
      B: 'key-b',
      C: 'key-c',
      OAUTH2_CLIENT_SECRET: 's',
      S: 's',
      PEM: PEM,
    };
    const line = describeStartup(await make(config, env));
    expect(line.slice(line.indexOf(', keys from ') + ', keys from '.length)).toBe(keys);
  });

  it('says loudly when nothing is checked', async () => {
    const auth = await make({ auth: { mode: 'api_key', api_keys: { enabled: false } } });
    expect(describeStartup(auth)).toBe('auth.mode api_key, handler none, keys: none, requests are NOT authenticated');
  });
});
