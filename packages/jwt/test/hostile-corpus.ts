import { randomBytes } from 'node:crypto';
import type { AuthFailure } from '@authlayer/core';
import { forgeToken, mintToken, signRaw, type SigningKey } from '@authlayer/testkit';
import { CompactEncrypt, FlattenedSign, type JWTPayload } from 'jose';
import { NOW, validClaims } from './fixtures.js';

// RFC 8725 (JWT Best Current Practices) as a list of tokens an attacker might send. Shared by
// the hostile-token tests (each refused with `reason` by an RS256 handler) and the differential
// test (the fast path and jose give the same answer to each, for every algorithm).

const ISSUER = 'https://idp.example';

/** Valid claims for the hostile tests' handler (`issuer`, `audience: api`), plus `extra`. */
export const hostileClaims = (extra: Record<string, unknown> = {}): JWTPayload =>
  validClaims({ iss: ISSUER, aud: 'api', ...extra });

/** What the corpus is made from; filled in (in `beforeAll`) before any `make` is called. */
export interface HostileContext {
  key: SigningKey;
  attackerKey: SigningKey;
  /** A good token signed by `key`. */
  good: string;
  /** Where an attacker's server listens (`jku`, `x5u`). */
  attackerOrigin: string;
}

export interface HostileCase {
  readonly name: string;
  readonly make: () => Promise<string> | string;
  /** What an RS256 handler trusting `key` answers. */
  readonly reason: AuthFailure;
}

const segments = (token: string) => token.split('.') as [string, string, string];
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The corpus; `make` reads `c` when called, so `c` may be filled in later. */
export function hostileCorpus(c: HostileContext): HostileCase[] {
  const header = (extra: Record<string, unknown> = {}) => ({ alg: c.key.alg, typ: 'JWT', kid: c.key.kid, ...extra });
  return [
    ...['none', 'None', 'NONE', 'nOnE'].flatMap((alg) => [
      {
        name: `alg ${alg}, no signature`,
        make: () => forgeToken({ alg, typ: 'JWT' }, hostileClaims()),
        reason: 'algorithm_not_allowed' as const,
      },
      {
        name: `alg ${alg}, with a signature`,
        make: () => forgeToken({ alg, kid: c.key.kid }, hostileClaims(), segments(c.good)[2]),
        reason: 'algorithm_not_allowed' as const,
      },
    ]),
    {
      name: 'HS256 keyed with the RSA public key PEM',
      make: () => signRaw(new TextEncoder().encode(c.key.envValue), header({ alg: 'HS256' }), hostileClaims()),
      reason: 'algorithm_not_allowed',
    },
    {
      name: 'the right kid, the wrong key',
      make: () => mintToken(c.attackerKey, hostileClaims(), { kid: c.key.kid }),
      reason: 'signature_invalid',
    },
    {
      name: "another issuer's keys",
      make: () => mintToken(c.attackerKey, hostileClaims({ iss: 'https://evil.example' })),
      reason: 'signature_invalid',
    },
    ...(['jku', 'x5u'] as const).map((member) => ({
      name: `${member} pointing at the attacker`,
      make: () => mintToken(c.attackerKey, hostileClaims(), { [member]: `${c.attackerOrigin}/${member}.json` }),
      reason: 'signature_invalid' as const,
    })),
    {
      name: "jwk embedding the attacker's key under the right kid",
      make: () =>
        mintToken(c.attackerKey, hostileClaims(), {
          kid: c.key.kid,
          jwk: { ...c.attackerKey.publicJwk, kid: c.key.kid },
        }),
      reason: 'signature_invalid',
    },
    {
      name: 'x5c carrying an attacker certificate',
      make: () =>
        mintToken(c.attackerKey, hostileClaims(), {
          x5c: [randomBytes(600).toString('base64')],
          x5u: `${c.attackerOrigin}/x5c`,
        }),
      reason: 'signature_invalid',
    },
    ...['k'.repeat(4000), '../../etc/passwd', "' OR '1'='1'; --", '__proto__', 'constructor', '\u0000\u202e'].map(
      (kid) => ({
        name: `hostile kid ${JSON.stringify(kid.slice(0, 20))}`,
        make: () => mintToken(c.key, hostileClaims(), { kid }),
        reason: 'signature_invalid' as const,
      }),
    ),
    ...[12345, { $ne: null }, ['a'], null, true].map((kid) => ({
      name: `kid that is not a string: ${JSON.stringify(kid)}`,
      make: () => signRaw(c.key.signingKey, header({ kid }), hostileClaims()),
      reason: 'signature_invalid' as const,
    })),
    {
      name: 'a JWE',
      make: () =>
        new CompactEncrypt(new TextEncoder().encode(JSON.stringify(hostileClaims())))
          .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: c.key.kid })
          .encrypt(randomBytes(32)),
      reason: 'token_malformed',
    },
    {
      name: 'a 100 KB token',
      make: () => mintToken(c.key, hostileClaims({ pad: 'x'.repeat(100 * 1024) })),
      reason: 'token_malformed',
    },
    {
      name: 'an unknown crit extension',
      make: () => signRaw(c.key.signingKey, header({ crit: ['x-ext'], 'x-ext': 1 }), hostileClaims()),
      reason: 'token_malformed',
    },
    {
      name: 'an unencoded payload (RFC 7797 b64: false)',
      make: async () => {
        const jws = await new FlattenedSign(new TextEncoder().encode('payload'))
          .setProtectedHeader(header({ crit: ['b64'], b64: false }))
          .sign(c.key.signingKey);
        return `${jws.protected}.${jws.payload}.${jws.signature}`;
      },
      reason: 'token_malformed',
    },
    {
      name: 'exp as a string',
      make: () => mintToken(c.key, hostileClaims({ exp: `${NOW + 300}` })),
      reason: 'token_malformed',
    },
    { name: 'no exp', make: () => mintToken(c.key, hostileClaims({ exp: undefined })), reason: 'token_malformed' },
    {
      name: 'a tampered payload',
      make: () =>
        [segments(c.good)[0], b64(hostileClaims({ sub: 'admin', roles: ['admin'] })), segments(c.good)[2]].join('.'),
      reason: 'signature_invalid',
    },
    {
      name: 'a stripped signature',
      make: () => `${segments(c.good)[0]}.${segments(c.good)[1]}.`,
      reason: 'signature_invalid',
    },
    { name: 'two segments', make: () => `${segments(c.good)[0]}.${segments(c.good)[1]}`, reason: 'token_malformed' },
    { name: 'not base64url at all', make: () => 'this+is/not~a.jwt+at/all', reason: 'token_malformed' },
    { name: 'base64url of nothing sensible', make: () => 'AAAA.BBBB.CCCC', reason: 'token_malformed' },
    {
      name: 'a header that is not JSON',
      make: () => forgeToken('{alg: RS256', hostileClaims(), segments(c.good)[2]),
      reason: 'token_malformed',
    },
    {
      name: 'a header that is a JSON array',
      make: () => forgeToken(['RS256'], hostileClaims(), segments(c.good)[2]),
      reason: 'token_malformed',
    },
    {
      name: 'alg that is not a string',
      make: () => forgeToken({ alg: ['RS256'], kid: c.key.kid }, hostileClaims(), segments(c.good)[2]),
      reason: 'token_malformed',
    },
    {
      name: 'a payload that is a JSON array',
      make: () => signRaw(c.key.signingKey, header(), [hostileClaims()]),
      reason: 'token_malformed',
    },
    {
      name: 'a payload that is not JSON',
      make: () => signRaw(c.key.signingKey, header(), 'hello'),
      reason: 'token_malformed',
    },
    {
      name: 'a token issued for another audience',
      make: () => mintToken(c.key, hostileClaims({ aud: 'other-api' })),
      reason: 'audience_mismatch',
    },
  ];
}
