import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { loadModeHandler, modePackageName } from '../src/load-mode.js';
import { createCaptureLogger as captureLogger } from '@authlayer/testkit';

const apiKey = parseAuthConfig({ auth: { mode: 'api_key' } });
const jwt = parseAuthConfig({ auth: { mode: 'jwt', jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } });
const deps = () => ({ env: { SERVICE_API_KEY: 'k' }, logger: captureLogger() });

/** What Node's resolver throws for a package that is not installed. */
function notFound(name: string, from = '/app/node_modules/@authlayer/express/dist/load-mode.js') {
  return Object.assign(new Error(`Cannot find package '${name}' imported from ${from}`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('modePackageName', () => {
  it.each([
    ['api_key', '@authlayer/api-key'],
    ['jwt', '@authlayer/jwt'],
  ] as const)('maps %s to %s', (mode, name) => {
    expect(modePackageName(mode)).toBe(name);
  });
});

describe('loadModeHandler', () => {
  it('imports the installed mode package by name', async () => {
    const loaded = await loadModeHandler(apiKey, deps());
    expect(loaded.fallback).toBe(false);
    expect(loaded.handler.method).toBe('api_key');
  });

  it('falls back to no-auth, warning loudly, only when the mode package itself is missing', async () => {
    const d = deps();
    const loaded = await loadModeHandler(jwt, d, (name) => Promise.reject(notFound(name)));
    expect(loaded.fallback).toBe(true);
    expect(loaded.handler.method).toBe('none');
    expect(d.logger.text).toEqual([
      'warn: auth.mode is "jwt" but the package @authlayer/jwt is not installed: falling back to the no-auth handler, ' +
        'requests are NOT authenticated. Install @authlayer/jwt to authenticate requests.',
    ]);
  });

  it('fails start-up when a dependency of the mode package is missing', async () => {
    const missingDependency = notFound('jose', '/app/node_modules/@authlayer/jwt/dist/index.js');
    await expect(loadModeHandler(jwt, deps(), () => Promise.reject(missingDependency))).rejects.toThrow(
      'cannot load @authlayer/jwt: Error ERR_MODULE_NOT_FOUND',
    );
  });

  it.each([
    ['throws while loading', () => Promise.reject(new SyntaxError('Unexpected token'))],
    ['throws a non-error', () => Promise.reject('nope')],
  ])('fails start-up when the package %s', async (_name, importModule) => {
    await expect(loadModeHandler(jwt, deps(), importModule)).rejects.toThrow(/^cannot load @authlayer\/jwt: /);
  });

  it.each([
    ['exports no createHandler', {}],
    ['exports a createHandler that is not a function', { createHandler: 'x' }],
    ['is null', null],
  ])('fails start-up when the package %s', async (_name, module) => {
    await expect(loadModeHandler(jwt, deps(), () => Promise.resolve(module))).rejects.toThrow(
      '@authlayer/jwt does not export a createHandler function',
    );
  });

  it('passes on what createHandler throws', async () => {
    await expect(loadModeHandler(apiKey, { env: {}, logger: captureLogger() })).rejects.toMatchObject({
      name: 'ConfigError',
      path: 'auth.api_keys.env_var',
    });
  });
});

describe('loadModeHandler with several modes', () => {
  const both = parseAuthConfig({ auth: { mode: ['api_key', 'jwt'], jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } } });
  const hiding = (hidden: string[]) => (name: string) =>
    hidden.includes(name) ? Promise.reject(notFound(name)) : (import(name) as Promise<unknown>);

  it('combines the handlers of every listed mode', async () => {
    const loaded = await loadModeHandler(both, deps());
    expect(loaded).toMatchObject({ fallback: false, methods: ['api_key', 'jwt'] });
  });

  it('leaves out a missing package with a warning naming it, keeping the others', async () => {
    const d = deps();
    const loaded = await loadModeHandler(both, d, hiding(['@authlayer/jwt']));
    expect(loaded).toMatchObject({ fallback: false, methods: ['api_key'] });
    expect(loaded.handler.method).toBe('api_key');
    expect(d.logger.text).toEqual([
      'warn: auth.mode lists jwt but the package @authlayer/jwt is not installed: jwt is left out and its credentials ' +
        'are refused. Install @authlayer/jwt to accept them.',
    ]);
  });

  it('falls back to no-auth only when every listed package is missing', async () => {
    const d = deps();
    const loaded = await loadModeHandler(both, d, hiding(['@authlayer/jwt', '@authlayer/api-key']));
    expect(loaded).toMatchObject({ fallback: true, methods: ['none'] });
    expect(d.logger.text).toEqual([
      'warn: auth.mode lists api_key, jwt but the packages @authlayer/api-key, @authlayer/jwt are not installed: falling ' +
        'back to the no-auth handler, requests are NOT authenticated. Install @authlayer/api-key, @authlayer/jwt to authenticate requests.',
    ]);
  });

  it('leaves out API keys that are disabled', async () => {
    const config = parseAuthConfig({
      auth: { mode: ['api_key', 'jwt'], api_keys: { enabled: false }, jwt: { jwks_url: 'http://127.0.0.1:9/jwks' } },
    });
    const loaded = await loadModeHandler(config, deps());
    expect(loaded).toMatchObject({ fallback: false, methods: ['jwt'] });
  });

  it.each([
    [
      'one of several',
      both,
      ['@authlayer/jwt'],
      'auth.mode: the package @authlayer/jwt is not installed and auth.fallback is refuse',
    ],
    [
      'the only one',
      jwt,
      ['@authlayer/jwt'],
      'auth.mode: the package @authlayer/jwt is not installed and auth.fallback is refuse',
    ],
  ])('with auth.fallback: refuse, fails start-up when %s is missing', async (_name, config, hidden, message) => {
    const refusing = parseAuthConfig({ auth: { ...toRaw(config), fallback: 'refuse' } });
    const d = deps();
    await expect(loadModeHandler(refusing, d, hiding(hidden))).rejects.toMatchObject({
      name: 'ConfigError',
      path: 'auth.mode',
      message,
    });
    expect(d.logger.text).toEqual([]);
  });

  it('refuses to combine a handler that accepts a request without credentials', async () => {
    const createHandler = () => Promise.resolve({ method: 'jwt', authenticate: () => Promise.resolve({}) });
    // The real package's section and schema: only its handler is replaced.
    const open = async (name: string) => ({ ...(await import(name)), createHandler });
    await expect(
      loadModeHandler(both, deps(), (name) => (name === '@authlayer/jwt' ? open(name) : import(name))),
    ).rejects.toThrow('the jwt handler accepts a request without credentials; it cannot be combined');
  });
});

function toRaw(config: ReturnType<typeof parseAuthConfig>) {
  return { mode: [...config.modes], ...config.modeSections };
}
