import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isAuthError, type AuthFailure, type AuthHandler } from '@authlayer/core';
import {
  createSigningKey,
  forgeToken,
  mintToken,
  signRaw,
  startJwksServer,
  startRecordingServer,
  type JwksServer,
  type RecordingServer,
  type SigningKey,
} from '@authlayer/testkit';
import { CompactEncrypt, FlattenedSign } from 'jose';
import { bearer, failure, jwksHandler, NOW, staticHandler, validClaims } from './fixtures.js';

// RFC 8725 (JWT Best Current Practices) is the checklist: every token here must be refused with
// a 401, and the handler must go on accepting good tokens afterwards.
const ISSUER = 'https://idp.example';
const claims = (extra: Record<string, unknown> = {}) => validClaims({ iss: ISSUER, aud: 'api', ...extra });

let key: SigningKey;
let attackerKey: SigningKey;
let jwks: JwksServer;
let attacker: RecordingServer;
let handler: AuthHandler;
let good: string;

beforeAll(async () => {
  [key, attackerKey] = await Promise.all([createSigningKey('RS256'), createSigningKey('RS256')]);
  [jwks, attacker] = await Promise.all([startJwksServer([key.publicJwk]), startRecordingServer()]);
  ({ handler } = await jwksHandler(jwks.url, { issuer: ISSUER, audience: 'api', algorithms: ['RS256'] }));
  good = await mintToken(key, claims());
});
afterAll(async () => {
  await Promise.all([jwks.close(), attacker.close()]);
});

const header = (extra: Record<string, unknown> = {}) => ({ alg: 'RS256', typ: 'JWT', kid: key.kid, ...extra });
const segments = (token: string) => token.split('.') as [string, string, string];
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

const corpus: { name: string; make: () => Promise<string> | string; reason: AuthFailure }[] = [
  ...['none', 'None', 'NONE', 'nOnE'].flatMap((alg) => [
    { name: `alg ${alg}, no signature`, make: () => forgeToken({ alg, typ: 'JWT' }, claims()), reason: 'algorithm_not_allowed' as const },
    {
      name: `alg ${alg}, with a signature`,
      make: () => forgeToken({ alg, kid: key.kid }, claims(), segments(good)[2]),
      reason: 'algorithm_not_allowed' as const,
    },
  ]),
  {
    name: 'HS256 keyed with the RSA public key PEM',
    make: () => signRaw(new TextEncoder().encode(key.envValue), header({ alg: 'HS256' }), claims()),
    reason: 'algorithm_not_allowed',
  },
  { name: 'the right kid, the wrong key', make: () => mintToken(attackerKey, claims(), { kid: key.kid }), reason: 'signature_invalid' },
  { name: "another issuer's keys", make: () => mintToken(attackerKey, claims({ iss: 'https://evil.example' })), reason: 'signature_invalid' },
  ...(['jku', 'x5u'] as const).map((member) => ({
    name: `${member} pointing at the attacker`,
    make: () => mintToken(attackerKey, claims(), { [member]: `${attacker.origin}/${member}.json` }),
    reason: 'signature_invalid' as const,
  })),
  {
    name: "jwk embedding the attacker's key under the right kid",
    make: () => mintToken(attackerKey, claims(), { kid: key.kid, jwk: { ...attackerKey.publicJwk, kid: key.kid } }),
    reason: 'signature_invalid',
  },
  {
    name: 'x5c carrying an attacker certificate',
    make: () => mintToken(attackerKey, claims(), { x5c: [randomBytes(600).toString('base64')], x5u: `${attacker.origin}/x5c` }),
    reason: 'signature_invalid',
  },
  ...['k'.repeat(4000), '../../etc/passwd', "' OR '1'='1'; --", '__proto__', 'constructor', '\u0000\u202e'].map((kid) => ({
    name: `hostile kid ${JSON.stringify(kid.slice(0, 20))}`,
    make: () => mintToken(key, claims(), { kid }),
    reason: 'signature_invalid' as const,
  })),
  ...[12345, { $ne: null }, ['a'], null, true].map((kid) => ({
    name: `kid that is not a string: ${JSON.stringify(kid)}`,
    make: () => signRaw(key.signingKey, header({ kid }), claims()),
    reason: 'signature_invalid' as const,
  })),
  {
    name: 'a JWE',
    make: () =>
      new CompactEncrypt(new TextEncoder().encode(JSON.stringify(claims())))
        .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: key.kid })
        .encrypt(randomBytes(32)),
    reason: 'token_malformed',
  },
  { name: 'a 100 KB token', make: () => mintToken(key, claims({ pad: 'x'.repeat(100 * 1024) })), reason: 'token_malformed' },
  { name: 'an unknown crit extension', make: () => signRaw(key.signingKey, header({ crit: ['x-ext'], 'x-ext': 1 }), claims()), reason: 'token_malformed' },
  {
    name: 'an unencoded payload (RFC 7797 b64: false)',
    make: async () => {
      const jws = await new FlattenedSign(new TextEncoder().encode('payload'))
        .setProtectedHeader(header({ crit: ['b64'], b64: false }))
        .sign(key.signingKey);
      return `${jws.protected}.${jws.payload}.${jws.signature}`;
    },
    reason: 'token_malformed',
  },
  { name: 'exp as a string', make: () => mintToken(key, claims({ exp: `${NOW + 300}` })), reason: 'token_malformed' },
  { name: 'no exp', make: () => mintToken(key, claims({ exp: undefined })), reason: 'token_malformed' },
  {
    name: 'a tampered payload',
    make: () => [segments(good)[0], b64(claims({ sub: 'admin', roles: ['admin'] })), segments(good)[2]].join('.'),
    reason: 'signature_invalid',
  },
  { name: 'a stripped signature', make: () => `${segments(good)[0]}.${segments(good)[1]}.`, reason: 'signature_invalid' },
  { name: 'two segments', make: () => `${segments(good)[0]}.${segments(good)[1]}`, reason: 'token_malformed' },
  { name: 'not base64url at all', make: () => 'this+is/not~a.jwt+at/all', reason: 'token_malformed' },
  { name: 'base64url of nothing sensible', make: () => 'AAAA.BBBB.CCCC', reason: 'token_malformed' },
  { name: 'a header that is not JSON', make: () => forgeToken('{alg: RS256', claims(), segments(good)[2]), reason: 'token_malformed' },
  { name: 'a header that is a JSON array', make: () => forgeToken(['RS256'], claims(), segments(good)[2]), reason: 'token_malformed' },
  { name: 'alg that is not a string', make: () => forgeToken({ alg: ['RS256'], kid: key.kid }, claims(), segments(good)[2]), reason: 'token_malformed' },
  { name: 'a payload that is a JSON array', make: () => signRaw(key.signingKey, header(), [claims()]), reason: 'token_malformed' },
  { name: 'a payload that is not JSON', make: () => signRaw(key.signingKey, header(), 'hello'), reason: 'token_malformed' },
  { name: 'a token issued for another audience', make: () => mintToken(key, claims({ aud: 'other-api' })), reason: 'audience_mismatch' },
];

describe('hostile tokens against a jwks_url handler (RS256)', () => {
  it.each(corpus)('refuses $name with $reason, and still accepts good tokens', async ({ make, reason }) => {
    await expect(handler.authenticate(bearer(await make()))).rejects.toMatchObject(failure(reason));
    expect(await handler.authenticate(bearer(good))).toMatchObject({ method: 'jwt', userId: 'user-1' });
  });

  it('refuses every one-character change of a good token with an AuthError, and nothing else', async () => {
    // The last character of a segment may carry only padding bits, so changing it can decode to
    // the same bytes; every other position changes the token's meaning.
    const positions = [...good].flatMap((c, i) => (c !== '.' && i + 1 < good.length && good[i + 1] !== '.' ? [i] : []));
    const sampled = positions.filter((_, n) => n % 3 === 0);
    const outcomes = await Promise.all(
      sampled.map((i) => {
        const changed = `${good.slice(0, i)}${good[i] === 'A' ? 'B' : 'A'}${good.slice(i + 1)}`;
        return handler.authenticate(bearer(changed)).then(
          () => 'accepted',
          (error: unknown) => (isAuthError(error) ? error.reason : 'not an AuthError'),
        );
      }),
    );
    expect(sampled.length).toBeGreaterThan(100);
    expect(outcomes.filter((outcome) => outcome === 'accepted' || outcome === 'not an AuthError')).toEqual([]);
    expect(outcomes).toContain('signature_invalid');
  });

  it('never fetched anything from the attacker, and fetched its own key set only within the cool-down', () => {
    expect(attacker.requests).toEqual([]);
    expect(jwks.hits).toBeLessThanOrEqual(2);
  });
});

describe('HMAC never with an asymmetric key, nor the reverse', () => {
  it('refuses an RS256 token at an HS256 handler, and alg none too', async () => {
    const secret = await createSigningKey('HS256');
    const { handler: hmac, token } = await staticHandler(secret);
    await expect(hmac.authenticate(bearer(good))).rejects.toMatchObject(failure('algorithm_not_allowed'));
    await expect(hmac.authenticate(bearer(forgeToken({ alg: 'none' }, validClaims())))).rejects.toMatchObject(
      failure('algorithm_not_allowed'),
    );
    expect(await hmac.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
  });

  it('refuses HS256 keyed with the PEM at a public_key_env RS256 handler', async () => {
    const { handler: rsa, token } = await staticHandler(key);
    const forged = await signRaw(new TextEncoder().encode(key.envValue), { alg: 'HS256' }, validClaims());
    await expect(rsa.authenticate(bearer(forged))).rejects.toMatchObject(failure('algorithm_not_allowed'));
    expect(await rsa.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
  });
});
