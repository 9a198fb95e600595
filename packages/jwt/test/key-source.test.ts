import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { createJwtHandler } from '../src/jwt-handler.js';
import { createKeySource } from '../src/keys/key-source.js';
import { jwtConfig, jwtSettings } from './fixtures.js';

describe('createKeySource', () => {
  const deps = { env: {}, logger: createCaptureLogger() };

  it('is given a config with exactly one source: the handler holds the section it is handed to the rules of jwt mode', async () => {
    const config = jwtConfig({ public_key_env: 'JWT_KEY' });
    const jwt = jwtSettings({ public_key_env: 'JWT_KEY' });
    for (const [section, message] of [
      [
        { ...jwt, publicKeyEnv: null },
        'auth.jwt: jwt mode needs jwks_url, public_key_env, public_key_file, discovery or providers',
      ],
      [
        { ...jwt, jwksUrl: 'https://idp.example/jwks' },
        'auth.jwt: set one of jwks_url, public_key_env, public_key_file and discovery, not jwks_url and public_key_env',
      ],
      [{ ...jwt, publicKeyEnv: null, discovery: true }, 'auth.jwt.issuer: discovery needs issuer'],
    ] as const) {
      await expect(createJwtHandler(config, { ...deps, section })).rejects.toMatchObject({
        name: 'ConfigError',
        message,
      });
    }
  });

  it('does not fetch an unreachable jwks_url at start-up', async () => {
    const jwt = jwtSettings({ jwks_url: 'http://127.0.0.1:9/jwks' });
    const source = await createKeySource(jwt, deps);
    expect(source.kind).toBe('jwks_url');
    expect(source.state()).toBe('not_fetched');
    expect(deps.logger.lines).toEqual([]);
  });
});

describe('createKeySource: config paths and kinds', () => {
  const deps = { env: {}, logger: createCaptureLogger() };

  it("names a provider's own path when its static key is missing", async () => {
    const jwt = jwtSettings({ public_key_env: 'JWT_KEY' });
    await expect(createKeySource(jwt, deps, 'auth.jwt.providers[1]')).rejects.toMatchObject({
      message: 'auth.jwt.providers[1].public_key_env: environment variable JWT_KEY is unset or empty',
    });
  });

  it('says a static key has no state, and warms nothing', async () => {
    const jwt = jwtSettings({ public_key_env: 'JWT_KEY', algorithms: ['HS256'] });
    const source = await createKeySource(jwt, { ...deps, env: { JWT_KEY: 'x'.repeat(32) } });
    expect(source.kind).toBe('public_key_env');
    expect(source.state()).toBeNull();
    await expect(source.warm()).resolves.toBeUndefined();
  });
});

describe('createKeySource: deps.carry (reload)', () => {
  it('asks the carry for a remote key set by its source and settings, and uses what it gives', async () => {
    const kept = new Map<string, object>();
    const carry = {
      keep: <T extends object>(key: string, make: () => T): T => {
        if (!kept.has(key)) kept.set(key, make());
        return kept.get(key) as T;
      },
    };
    const deps = { env: {}, logger: createCaptureLogger(), carry };
    const jwt = jwtSettings({ jwks_url: 'http://127.0.0.1:9/jwks' });
    const first = await createKeySource(jwt, deps);
    const again = await createKeySource(jwt, deps, 'auth.jwt.providers[0]');
    expect(again.getKey).toBe(first.getKey);
    await createKeySource({ ...jwt, staleKeysSeconds: 0 }, deps);
    expect([...kept.keys()]).toEqual([
      'jwt.remote-key-set:[{"jwksUrl":"http://127.0.0.1:9/jwks"},3600000,{}]',
      'jwt.remote-key-set:[{"jwksUrl":"http://127.0.0.1:9/jwks"},0,{}]',
    ]);
  });
});

describe('createJwtHandler: deps.carry (reload)', () => {
  it('keeps the DPoP replay cache, so a proof seen before a reload is a replay after it', async () => {
    const asked: string[] = [];
    const carry = {
      keep: <T extends object>(key: string, make: () => T): T => {
        asked.push(key);
        return make();
      },
    };
    const config = jwtConfig({ jwks_url: 'http://127.0.0.1:9/jwks', dpop: 'allowed' });
    await createJwtHandler(config, { env: {}, logger: createCaptureLogger(), carry });
    expect(asked).toContain('jwt.dpop-replay-cache');
  });
});
