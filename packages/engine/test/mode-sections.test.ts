import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { loadModeHandler } from '../src/load-mode.js';

// A built-in mode's section is its package's (core names none): the engine's loader has the
// package check it, for a listed mode and for a section kept beside another mode.
const deps = () => ({ env: { SERVICE_API_KEY: 'k', PARTNER_KEY: 'p' }, logger: createCaptureLogger() });
const JWT = { jwks_url: 'http://127.0.0.1:9/jwks' };

async function issuesOf(raw: object): Promise<string[]> {
  try {
    await loadModeHandler(parseAuthConfig(raw), deps());
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map(({ path, message }) => `${path}: ${message}`);
  }
  return [];
}

describe('a mode section checked by its own package', () => {
  it('refuses a broken auth.api_keys of the listed mode with the lines core gave', async () => {
    expect(await issuesOf({ auth: { mode: 'api_key', api_keys: { header: '', allow_barer: true } } })).toEqual([
      'auth.api_keys.header: must not be empty',
      'auth.api_keys.allow_barer: unknown field (did you mean allow_bearer?)',
    ]);
  });

  it("gives the handler the section's value: the configured header is the one read", async () => {
    const config = parseAuthConfig({
      auth: { mode: 'api_key', api_keys: { header: 'X-Partner', env_var: 'PARTNER_KEY' } },
    });
    const { handler } = await loadModeHandler(config, deps());
    expect(handler.credentialHeaders).toEqual(['x-partner']);
    await expect(handler.authenticate({ headers: { 'x-partner': 'p' } })).resolves.toMatchObject({
      userId: 'PARTNER_KEY',
    });
  });

  it('checks an auth.api_keys kept beside mode: jwt (a switch back) with the installed package', async () => {
    expect(await issuesOf({ auth: { mode: 'jwt', jwt: JWT, api_keys: { rotation_days: 0 } } })).toEqual([
      'auth.api_keys.rotation_days: must be at least 1',
    ]);
    expect(await issuesOf({ auth: { mode: 'jwt', jwt: JWT, api_keys: { header: 'X-Key' } } })).toEqual([]);
  });

  it('refuses an auth key no package reads, naming the sections it may have meant', async () => {
    expect(await issuesOf({ auth: { mode: 'jwt', jwt: JWT, api_key: {} } })).toEqual([
      'auth.api_key: unknown field (did you mean api_keys?)',
    ]);
    expect(await issuesOf({ auth: { mode: 'api_key', colour: 'blue' } })).toEqual(['auth.colour: unknown field']);
  });

  it("needs the top-level rate_limit for a client's own limit, as before", async () => {
    const keys = [{ name: 'partner', env_var: 'PARTNER_KEY', requests_per_minute: 5 }];
    expect(await issuesOf({ auth: { mode: 'api_key', api_keys: { keys } } })).toEqual([
      "auth.api_keys.keys[0].requests_per_minute: needs the top-level rate_limit (its store counts the client's requests)",
    ]);
  });

  it('leaves a section alone when its listed package is missing (the fallback warns instead)', async () => {
    const missing = Object.assign(new Error("Cannot find package '@authlayer/api-key'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: { header: '' } } });
    const d = deps();
    const loaded = await loadModeHandler(config, d, () => Promise.reject(missing));
    expect(loaded.fallback).toBe(true);
    expect(d.logger.text.join('\n')).toMatch(/requests are NOT authenticated/);
  });
});
