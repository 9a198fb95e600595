import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { createAuthMiddleware, describeStartup } from '../src/index.js';

const KEY = 'describe-startup-key';
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

  it('says loudly when nothing is checked', async () => {
    const auth = await make({ auth: { mode: 'api_key', api_keys: { enabled: false } } });
    expect(describeStartup(auth)).toBe('auth.mode api_key, handler none, keys: none, requests are NOT authenticated');
  });
});
