import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { isConfigError, type JwtAlgorithm } from '@authlayer/core';
import { createCaptureLogger, createSigningKey, mintToken } from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { bearer, jwtConfig, now, validClaims } from './fixtures.js';

const pem = (type: 'rsa' | 'ec' | 'ed25519', options: object = {}): string => {
  const { publicKey } = generateKeyPairSync(type as 'rsa', { modulusLength: 2048, ...options });
  return publicKey.export({ type: 'spki', format: 'pem' }) as string;
};
const RSA = pem('rsa');
const P256 = pem('ec', { namedCurve: 'P-256' });
const PRIVATE = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
  type: 'pkcs8',
  format: 'pem',
}) as string;

const start = (algorithms: JwtAlgorithm[], value: string | undefined) =>
  createJwtHandler(jwtConfig({ public_key_env: 'JWT_KEY', algorithms }), {
    env: { JWT_KEY: value },
    logger: createCaptureLogger(),
    now,
  });

const KEYS = 'auth.jwt.public_key_env';
const ALGS = 'auth.jwt.algorithms';
const cases: { name: string; algorithms: JwtAlgorithm[]; value: string | undefined; path: string; message: string }[] =
  [
    {
      name: 'unset variable',
      algorithms: ['RS256'],
      value: undefined,
      path: KEYS,
      message: 'environment variable JWT_KEY is unset or empty',
    },
    {
      name: 'blank variable',
      algorithms: ['RS256'],
      value: ' \n',
      path: KEYS,
      message: 'environment variable JWT_KEY is unset or empty',
    },
    {
      name: 'not a key',
      algorithms: ['RS256'],
      value: 'hello',
      path: KEYS,
      message: 'environment variable JWT_KEY does not hold a PEM public key',
    },
    {
      name: 'a broken PEM',
      algorithms: ['ES256'],
      value: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
      path: KEYS,
      message: 'environment variable JWT_KEY does not hold a PEM public key',
    },
    {
      name: 'a private key',
      algorithms: ['ES256'],
      value: PRIVATE,
      path: KEYS,
      message: 'environment variable JWT_KEY holds a private key; give the public key',
    },
    {
      name: 'RS256 with an EC key',
      algorithms: ['RS256'],
      value: P256,
      path: ALGS,
      message: 'RS256 cannot be used with the EC P-256 key in environment variable JWT_KEY',
    },
    {
      name: 'ES256 with an RSA key',
      algorithms: ['ES256'],
      value: RSA,
      path: ALGS,
      message: 'ES256 cannot be used with the RSA key in environment variable JWT_KEY',
    },
    {
      name: 'ES384 with a P-256 key',
      algorithms: ['ES256', 'ES384'],
      value: P256,
      path: ALGS,
      message: 'ES384 cannot be used with the EC P-256 key in environment variable JWT_KEY',
    },
    {
      name: 'ES256 with a secp256k1 key',
      algorithms: ['ES256'],
      value: pem('ec', { namedCurve: 'secp256k1' }),
      path: ALGS,
      message: 'ES256 cannot be used with the EC secp256k1 key in environment variable JWT_KEY',
    },
    {
      name: 'RS256 with an Ed25519 key',
      algorithms: ['RS256'],
      value: pem('ed25519'),
      path: ALGS,
      message: 'RS256 cannot be used with the ed25519 key in environment variable JWT_KEY',
    },
    {
      name: 'RS256 with a 1024-bit key',
      algorithms: ['RS256'],
      value: pem('rsa', { modulusLength: 1024 }),
      path: ALGS,
      message:
        'RS256 cannot be used with the 1024-bit RSA key (RSA keys need 2048 bits or more) in environment variable JWT_KEY',
    },
    {
      name: 'RS256 with an HMAC secret',
      algorithms: ['RS256'],
      value: 'x'.repeat(64),
      path: KEYS,
      message: 'environment variable JWT_KEY does not hold a PEM public key',
    },
    {
      name: 'HS256 with a PEM key',
      algorithms: ['HS256'],
      value: RSA,
      path: KEYS,
      message: 'environment variable JWT_KEY holds a PEM key, but HMAC algorithms (HS256) need a shared secret',
    },
    {
      name: 'HS256 with a 31-byte secret',
      algorithms: ['HS256'],
      value: 'x'.repeat(31),
      path: KEYS,
      message:
        'environment variable JWT_KEY holds a secret of 31 bytes; HS256 needs at least 32 (RFC 7518 section 3.2)',
    },
    {
      name: 'HS512 with a 63-byte secret',
      algorithms: ['HS256', 'HS512'],
      value: 'x'.repeat(63),
      path: KEYS,
      message:
        'environment variable JWT_KEY holds a secret of 63 bytes; HS512 needs at least 64 (RFC 7518 section 3.2)',
    },
    {
      name: 'HMAC and public-key algorithms together',
      algorithms: ['RS256', 'HS256'],
      value: RSA,
      path: ALGS,
      message: 'one key (environment variable JWT_KEY) cannot serve both HMAC (HS256) and public-key algorithms',
    },
  ];

describe('start-up failures of public_key_env', () => {
  it.each(cases)('$name: ConfigError at $path', async ({ algorithms, value, path, message }) => {
    const error = await start(algorithms, value).catch((e: unknown) => e);
    expect(isConfigError(error)).toBe(true);
    expect(error).toMatchObject({
      name: 'ConfigError',
      path,
      message: `${path}: ${message}`,
      issues: [{ path, message }],
    });
    // The message names the variable, never its value.
    expect((error as Error).message).toContain('JWT_KEY');
    if (value !== undefined && value.trim() !== '')
      expect((error as Error).message).not.toContain(value.trim().slice(0, 40));
  });
});

describe('accepted key material', () => {
  it('takes a PKCS#1 RSA PUBLIC KEY and a PEM whose line breaks are written as \\n', async () => {
    const key = await createSigningKey('RS256');
    const pkcs1 = createPublicKey(key.envValue).export({ type: 'pkcs1', format: 'pem' }) as string;
    const token = await mintToken(key, validClaims());
    for (const value of [pkcs1, key.envValue.replaceAll('\n', '\\n')]) {
      expect(await (await start(['RS256'], value)).authenticate(bearer(token))).toMatchObject({ userId: 'user-1' });
    }
  });

  it('takes an HMAC secret of exactly the hash size, counted in UTF-8 bytes', async () => {
    await expect(start(['HS256'], 'x'.repeat(32))).resolves.toMatchObject({ method: 'jwt' });
    await expect(start(['HS256'], 'é'.repeat(16))).resolves.toMatchObject({ method: 'jwt' });
    await expect(start(['HS384'], 'é'.repeat(23))).rejects.toThrow(
      'holds a secret of 46 bytes; HS384 needs at least 48',
    );
  });
});
