import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { createSigningKey, mintToken } from '@authlayer/testkit';
import type { JwtAlgorithm } from '@authlayer/core';
import { importJWK, type JWTVerifyGetKey } from 'jose';
import { createJoseVerifier } from '../src/verify/jose-verify.js';
import { createTokenVerifier } from '../src/verify/verify-token.js';
import { verifySignature } from '../src/verify/verify-signature.js';
import { failure, now, validClaims } from './fixtures.js';

const subtle = globalThis.crypto.subtle;
const jwt = (alg: JwtAlgorithm) => ({ issuer: null, audience: null, algorithms: [alg], leewaySeconds: 0 });
const both = (key: JWTVerifyGetKey, alg: JwtAlgorithm) => [
  createTokenVerifier(key, { jwt: jwt(alg), now }),
  createJoseVerifier(key, { jwt: jwt(alg), now }),
];
const spki = (key: KeyObject) => key.export({ type: 'spki', format: 'der' });

describe('a key that does not fit the algorithm is refused as jose refuses it', () => {
  it.each([
    [
      'RS256 with an RSA key imported for SHA-384',
      'RS256',
      async () => {
        const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        return subtle.importKey('spki', spki(publicKey), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' }, false, [
          'verify',
        ]);
      },
    ],
    [
      'RS256 with a 1024-bit RSA key',
      'RS256',
      async () => {
        const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
        return subtle.importKey('spki', spki(publicKey), { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, [
          'verify',
        ]);
      },
    ],
    [
      'RS256 with an RSA-PSS key',
      'RS256',
      async () => {
        const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        return subtle.importKey('spki', spki(publicKey), { name: 'RSA-PSS', hash: 'SHA-256' }, false, ['verify']);
      },
    ],
    [
      'ES256 with a P-384 key',
      'ES256',
      async () => {
        const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
        return subtle.importKey('spki', spki(publicKey), { name: 'ECDSA', namedCurve: 'P-384' }, false, ['verify']);
      },
    ],
    [
      'ES256 with a private key',
      'ES256',
      async () =>
        (await subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])).privateKey,
    ],
    [
      'HS256 with an HMAC key for SHA-512',
      'HS256',
      () => subtle.importKey('raw', new Uint8Array(64), { name: 'HMAC', hash: 'SHA-512' }, false, ['verify']),
    ],
    [
      'HS256 with an HMAC key that may only sign',
      'HS256',
      () => subtle.importKey('raw', new Uint8Array(64), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
    ],
  ] as const)('%s', async (_name, alg, makeKey) => {
    const wrongKey = await makeKey();
    const token = await mintToken(await createSigningKey(alg), validClaims());
    for (const verify of both(() => wrongKey, alg)) {
      await expect(verify(token)).rejects.toMatchObject(failure('token_malformed'));
    }
  });
});

describe('keys the fast path leaves to jose', () => {
  it('verifies with an HMAC secret given as bytes, a KeyObject, or refuses no key at all', async () => {
    const key = await createSigningKey('HS256');
    const secret = key.signingKey as Uint8Array;
    const token = await mintToken(key, validClaims());
    for (const resolved of [
      secret,
      KeyObject.from(await subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, true, ['verify'])),
    ]) {
      const [fast] = both(() => resolved, 'HS256');
      expect(await fast!(token)).toMatchObject({ sub: 'user-1' });
    }
    const [fast] = both(() => null as never, 'HS256');
    await expect(fast!(token)).rejects.toMatchObject(failure('token_malformed'));
  });

  it('refuses as jose does when the clock is not a usable time', async () => {
    const token = await mintToken(await createSigningKey('HS256'), validClaims());
    const key = await subtle.importKey('raw', new Uint8Array(64), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    const signed = await mintToken(
      { alg: 'HS256', kid: undefined, signingKey: new Uint8Array(64), publicJwk: {}, envValue: '' },
      validClaims(),
    );
    for (const clock of [Number.NaN, 9e15]) {
      const settings = { jwt: jwt('HS256'), now: () => clock };
      for (const verify of [createTokenVerifier(() => key, settings), createJoseVerifier(() => key, settings)]) {
        await expect(verify(signed)).rejects.toMatchObject(failure('token_malformed'));
        await expect(verify(token)).rejects.toMatchObject(failure('signature_invalid'));
      }
    }
  });

  it('refuses as jose does when the resolver throws at once', async () => {
    const token = await mintToken(await createSigningKey('HS256'), validClaims());
    const throwing = () => {
      throw new Error('no key');
    };
    for (const verify of both(throwing, 'HS256'))
      await expect(verify(token)).rejects.toMatchObject(failure('token_malformed'));
  });
});

describe('verifySignature', () => {
  it('answers false, never throws, when node:crypto cannot use the key', () => {
    const { publicKey } = generateKeyPairSync('x25519');
    expect(verifySignature('RS256', publicKey, 'a.b', Buffer.alloc(256))).toBe(false);
  });
});

describe("the jose path's audience rules (as the fast path's)", () => {
  const IDENTIFIER = 'https://mcp.example.com/mcp';
  const verifier = async (audienceStrict: boolean) => {
    const signing = await createSigningKey('ES256');
    const publicKey = await importJWK(signing.publicJwk, 'ES256');
    const key: JWTVerifyGetKey = async () => publicKey;
    const settings = { ...jwt('ES256'), audience: IDENTIFIER, audienceStrict };
    return {
      sign: (aud: string | string[]) => mintToken(signing, validClaims({ aud })),
      verify: createJoseVerifier(key, { jwt: settings, now }),
    };
  };

  it('takes an audience that names the resource as a URI (case, trailing slash)', async () => {
    const { sign, verify } = await verifier(true);
    await expect(verify(await sign('https://MCP.example.com/mcp/'))).resolves.toMatchObject({ sub: 'user-1' });
  });

  it('audience_strict: a token also for another audience is refused with its own sentence', async () => {
    const strict = await verifier(true);
    await expect(strict.verify(await strict.sign([IDENTIFIER, 'https://other.example.com']))).rejects.toMatchObject({
      reason: 'audience_mismatch',
      message: 'the token is also for another audience',
    });
    const lax = await verifier(false);
    await expect(lax.verify(await lax.sign([IDENTIFIER, 'https://other.example.com']))).resolves.toMatchObject({
      sub: 'user-1',
    });
  });
});
