import { describe, expect, it } from '@jest/globals';
import { AuthError, isConfigError, parseAuthConfig, type HandlerDeps } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { loadModeHandler, type StandardSchema } from '../src/load-mode.js';

// What a mode package may export, as the loader reads it: `createHandler` alone (its section, when
// written, is given as it is), a section name and a Standard Schema of its own, or something the
// loader refuses at start-up with the package's name.

const MODE = '@acme/authlayer-sign';

/** A package of `exports`, whose handler records the deps it was made with. */
function packageOf(exports: Record<string, unknown>) {
  const made: HandlerDeps[] = [];
  const createHandler = (_config: unknown, deps: HandlerDeps) => {
    made.push(deps);
    return Promise.resolve({
      method: 'sign',
      authenticate: () => Promise.reject(new AuthError('credentials_missing', 'Signature realm="authlayer"')),
    });
  };
  const importModule = (name: string) =>
    name === MODE ? Promise.resolve({ createHandler, ...exports }) : (import(name) as Promise<unknown>);
  return { made, importModule };
}
const deps = () => ({ env: {}, logger: createCaptureLogger() });
const configOf = (auth: Record<string, unknown> = {}) => parseAuthConfig({ auth: { mode: MODE, ...auth } });

async function issuesOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => new Error('loaded'),
    (reason: unknown) => reason,
  );
  if (!isConfigError(error)) throw error;
  return error.issues;
}

describe('a mode package that exports createHandler alone', () => {
  it('is made without a section when none is written', async () => {
    const { made, importModule } = packageOf({});
    const loaded = await loadModeHandler(configOf(), deps(), importModule);
    expect(loaded.methods).toEqual(['sign']);
    expect(made).toHaveLength(1);
    expect(made[0]).not.toHaveProperty('section');
  });

  it('is given its section under its name without the scope, as written (nothing checks it)', async () => {
    const { made, importModule } = packageOf({});
    await loadModeHandler(configOf({ 'authlayer-sign': { header: 'X-Sig', colour: 1 } }), deps(), importModule);
    expect(made[0]?.section).toEqual({ header: 'X-Sig', colour: 1 });
  });
});

describe('a mode package with a schema of its own', () => {
  const schema = (issues: readonly { message: string; path?: readonly unknown[] }[]): StandardSchema => ({
    '~standard': { validate: () => ({ issues }) as never },
  });

  it("names each issue at auth.<section>.<path>, a `{ key }` segment as its key, no path as the section's", async () => {
    const { importModule } = packageOf({
      section: 'sign',
      configSchema: schema([
        { message: 'must be a header name', path: [{ key: 'header' }] },
        { message: 'needs a secret', path: undefined },
      ]),
    });
    expect(await issuesOf(loadModeHandler(configOf({ sign: { header: '' } }), deps(), importModule))).toEqual([
      { path: 'auth.sign.header', message: 'must be a header name' },
      { path: 'auth.sign', message: 'needs a secret' },
    ]);
  });

  it("gives the schema's value to createHandler as its section", async () => {
    const { made, importModule } = packageOf({
      section: 'sign',
      configSchema: { '~standard': { validate: (raw: unknown) => ({ value: { checked: raw } }) } },
    });
    await loadModeHandler(configOf({ sign: { header: 'X-Sig' } }), deps(), importModule);
    expect(made[0]?.section).toEqual({ checked: { header: 'X-Sig' } });
  });
});

describe('a mode package the loader refuses at start-up', () => {
  it.each([
    ['an empty section name', { section: '' }, `${MODE} exports a section that is not a key name`],
    ['a section that is not a string', { section: 7 }, `${MODE} exports a section that is not a key name`],
    [
      'a configSchema without ~standard.validate',
      { configSchema: { parse: () => ({}) } },
      `${MODE} exports a configSchema that is not a Standard Schema (zod, valibot, arktype)`,
    ],
  ])('%s', async (_name, exports, message) => {
    const { importModule } = packageOf(exports);
    await expect(loadModeHandler(configOf(), deps(), importModule)).rejects.toThrow(new Error(message));
  });
});

describe('several listed packages missing', () => {
  it('the warning names each package left out, and the rest serve', async () => {
    const config = parseAuthConfig({
      auth: {
        mode: ['api_key', 'jwt', 'oauth2'],
        jwt: { jwks_url: 'https://idp.example.com/jwks' },
        oauth2: { introspection_url: 'https://idp.example.com/i', client_id: 'api' },
      },
    });
    const hidden = ['@authlayer/jwt', '@authlayer/oauth2'];
    const importModule = (name: string) =>
      hidden.includes(name)
        ? Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }))
        : (import(name) as Promise<unknown>);
    const d = { env: { SERVICE_API_KEY: 'k-0123456789abcdef' }, logger: createCaptureLogger() };
    const loaded = await loadModeHandler(config, d, importModule);
    expect(loaded.methods).toEqual(['api_key']);
    expect(d.logger.text).toEqual([
      'warn: auth.mode lists jwt, oauth2 but the packages @authlayer/jwt, @authlayer/oauth2 are not installed: ' +
        'jwt, oauth2 is left out and its credentials are refused. Install @authlayer/jwt, @authlayer/oauth2 to accept them.',
    ]);
  });
});

describe("a spec mode's package that names no section, installed beside another mode", () => {
  it('checks the section under its mode name kept for a switch back, as it would when listed', async () => {
    // An installed stand-in for @authlayer/oauth2 (an npm alias) that exports no `section`.
    const standIn = {
      createHandler: () => Promise.reject(new Error('not listed: never made')),
      configSchema: {
        '~standard': { validate: () => ({ issues: [{ message: 'is checked by the stand-in', path: ['colour'] }] }) },
      },
    };
    const config = parseAuthConfig({
      auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example.com/jwks' }, oauth2: { colour: 1 } },
    });
    const importModule = (name: string) =>
      name === '@authlayer/oauth2' ? Promise.resolve(standIn) : (import(name) as Promise<unknown>);
    expect(await issuesOf(loadModeHandler(config, deps(), importModule))).toEqual([
      { path: 'auth.oauth2.colour', message: 'is checked by the stand-in' },
    ]);
  });

  it('refuses that section as an unknown field when no package of its mode is installed', async () => {
    const config = parseAuthConfig({
      auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example.com/jwks' }, oauth2: { client_id: 'api' } },
    });
    const importModule = (name: string) =>
      name === '@authlayer/oauth2'
        ? Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }))
        : (import(name) as Promise<unknown>);
    expect(await issuesOf(loadModeHandler(config, deps(), importModule))).toEqual([
      { path: 'auth.oauth2', message: 'unknown field' },
    ]);
  });
});
