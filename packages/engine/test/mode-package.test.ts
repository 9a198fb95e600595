// A mode package written outside the monorepo (tests/e2e/fixtures/authlayer-hmac, its own
// package.json, section schema and handler) loads by the name `auth.mode` gives it, checks its
// own section, and says for itself what --check, OpenAPI, the start-up line and the log need.
import { describe, expect, it } from '@jest/globals';
import { isConfigError, parseAuthConfig, type AuthConfig, type AuthHandler } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createHmac } from 'node:crypto';
import { loadModeHandler, modePackageName } from '../src/load-mode.js';
import { secretHeaders } from '../src/logger.js';
import { openApiSecurity } from '../src/openapi-security.js';
import { summaryOf } from '../src/combine-handlers.js';

const FIXTURE = new URL('../../../tests/e2e/fixtures/authlayer-hmac/index.js', import.meta.url).href;
const SECRET = 'fixture-hmac-secret';
const env = { HMAC_SECRET: SECRET, SERVICE_API_KEY: 'service-key-0123456789' };

/** Node's import, except that the fixture is found where it lies (as npm would install it). */
const importModule = (specifier: string) => import(specifier === '@authlayer/hmac' ? FIXTURE : specifier);
const missing = (specifier: string) =>
  specifier === '@authlayer/hmac'
    ? Promise.reject(
        Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/x.js`), {
          code: 'ERR_MODULE_NOT_FOUND',
        }),
      )
    : import(specifier);

const hmacConfig = (auth: Record<string, unknown> = {}) =>
  parseAuthConfig({ auth: { mode: 'hmac', hmac: { secret_env: 'HMAC_SECRET' }, ...auth } });
const load = (config: AuthConfig, how = importModule) => {
  const logger = createCaptureLogger();
  return loadModeHandler(config, { env, logger }, how).then((loaded) => ({ ...loaded, logger }));
};
const sign = (method: string, path: string) => createHmac('sha256', SECRET).update(`${method}${path}`).digest('hex');

async function configErrorOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error('loaded'),
    (reason: unknown) => reason,
  );
  if (!isConfigError(error)) throw error;
  return error.issues;
}

describe('a mode package outside the monorepo (@authlayer/hmac fixture)', () => {
  it('loads by the name auth.mode gives it and authenticates with its own credential', async () => {
    expect(modePackageName('hmac')).toBe('@authlayer/hmac');
    const { handler, methods, fallback } = await load(hmacConfig());
    expect([methods, fallback]).toEqual([['hmac'], false]);
    const request = { method: 'POST', originalUrl: '/invoke', headers: { 'x-signature': sign('POST', '/invoke') } };
    await expect(handler.authenticate(request)).resolves.toMatchObject({ method: 'hmac', userId: 'signed-client' });
    const forged = { ...request, headers: { 'x-signature': sign('GET', '/invoke') } };
    await expect(handler.authenticate(forged)).rejects.toMatchObject({ reason: 'credentials_invalid' });
  });

  it('checks its own section: a bad field is a ConfigError naming it', async () => {
    expect(await configErrorOf(load(hmacConfig({ hmac: { secret_env: 'not a variable', colour: 1 } })))).toEqual([
      { path: 'auth.hmac.colour', message: 'unknown field' },
      { path: 'auth.hmac.secret_env', message: 'must be the name of an environment variable' },
    ]);
    expect(await configErrorOf(load(hmacConfig({ hmac: undefined })))).toEqual([
      { path: 'auth.hmac', message: 'hmac mode needs secret_env' },
    ]);
  });

  it('refuses an auth key that no listed mode reads, with the likely one', async () => {
    expect(await configErrorOf(load(hmacConfig({ hmca: { secret_env: 'X' } })))).toEqual([
      { path: 'auth.hmca', message: 'unknown field (did you mean hmac?)' },
    ]);
  });

  it('says what --check, OpenAPI, the start-up line and the log need, beside a mode of this repository', async () => {
    const config = hmacConfig({ mode: ['api_key', 'hmac'] });
    const { handler, methods } = await load(config);
    expect(methods).toEqual(['api_key', 'hmac']);
    // --check: each mode's description, its variables by name.
    expect(handler.describe?.()).toMatchObject({
      hmac: { key_material: { HMAC_SECRET: 'set' }, header: 'x-signature' },
    });
    // OpenAPI: its scheme beside the API key's.
    const { schemes, requirements } = openApiSecurity(handler);
    expect(schemes.HmacSignature).toEqual({
      type: 'apiKey',
      in: 'header',
      name: 'x-signature',
      description: 'hex HMAC-SHA256 of the method and path',
    });
    expect(requirements).toContainEqual({ HmacSignature: [] });
    // The start-up line's "keys from ...".
    expect(summaryOf(handler)).toContain(
      'hmac: environment variable HMAC_SECRET (HMAC-SHA256 signatures in x-signature)',
    );
    // The log: its credential header is a secret header.
    expect(secretHeaders({ handler, config })).toEqual([
      'authorization',
      'proxy-authorization',
      'cookie',
      'x-api-key',
      'x-signature',
    ]);
    // The request goes to the mode whose credential it carries.
    const signed = { method: 'GET', originalUrl: '/a?b=1', headers: { 'x-signature': sign('GET', '/a?b=1') } };
    await expect((handler as AuthHandler).authenticate(signed)).resolves.toMatchObject({ method: 'hmac' });
  });

  it('is a start-up failure when it is not installed (the no-auth fallback is for the known modes only)', async () => {
    const refused = [
      {
        path: 'auth.mode',
        message:
          'must be one of: api_key, jwt, oauth2, or an installed mode package (@authlayer/hmac is not installed)',
      },
    ];
    expect(await configErrorOf(load(hmacConfig(), missing))).toEqual(refused);
    // A typo of a mode in a list, as the contract's regression suite writes it, fails alike.
    expect(await configErrorOf(load(hmacConfig({ mode: ['api_key', 'hmac'] }), missing))).toEqual(refused);
    expect(await configErrorOf(load(hmacConfig({ fallback: 'refuse' }), missing))).toEqual(refused);
  });

  it('names a scoped package by itself', () => {
    expect(modePackageName('@acme/authlayer-hmac')).toBe('@acme/authlayer-hmac');
  });
});
