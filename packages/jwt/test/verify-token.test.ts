import { beforeAll, describe, expect, it } from '@jest/globals';
import type { AuthFailure } from '@authlayer/core';
import { createSigningKey, mintToken, signRaw, type SigningKey } from '@authlayer/testkit';
import { importJWK, type JWTPayload } from 'jose';
import { createTokenVerifier, MAX_TOKEN_BYTES, type TokenVerifier } from '../src/verify/verify-token.js';
import { failure, NOW, now } from './fixtures.js';

const LEEWAY = 30;
let key: SigningKey;
let verify: TokenVerifier;

beforeAll(async () => {
  key = await createSigningKey('ES256');
  const publicKey = await importJWK(key.publicJwk, 'ES256');
  verify = createTokenVerifier(() => publicKey, {
    jwt: { issuer: 'https://idp.example', audience: 'api', algorithms: ['ES256'], leewaySeconds: LEEWAY },
    now,
  });
});

const base = (claims: JWTPayload): JWTPayload => ({ iss: 'https://idp.example', aud: 'api', ...claims });
const accepts = async (claims: JWTPayload) =>
  expect(await verify(await mintToken(key, base(claims)))).toMatchObject(claims);
const refuses = async (claims: JWTPayload, reason: AuthFailure) =>
  expect(verify(await mintToken(key, base(claims)))).rejects.toMatchObject(failure(reason));

describe('time checks with a pinned clock and leeway_seconds = 30', () => {
  it('accepts exp up to the leeway in the past and refuses it one second later (RFC 7519 §4.1.4)', async () => {
    await accepts({ exp: NOW - LEEWAY + 1 });
    await refuses({ exp: NOW - LEEWAY }, 'token_expired');
    await refuses({ exp: NOW - LEEWAY - 1 }, 'token_expired');
  });

  it('accepts nbf up to the leeway in the future and refuses one second beyond (RFC 7519 §4.1.5)', async () => {
    await accepts({ exp: NOW + 60, nbf: NOW + LEEWAY });
    await refuses({ exp: NOW + 60, nbf: NOW + LEEWAY + 1 }, 'token_not_yet_valid');
  });

  it('accepts iat up to the leeway in the future and refuses one second beyond', async () => {
    await accepts({ exp: NOW + 60, iat: NOW + LEEWAY });
    await refuses({ exp: NOW + 60, iat: NOW + LEEWAY + 1 }, 'token_not_yet_valid');
    await accepts({ exp: NOW + 60, iat: NOW - 86_400 });
  });

  it('refuses a token without exp, and time claims that are not numbers', async () => {
    await refuses({}, 'token_malformed');
    await refuses({ exp: `${NOW + 60}` as never }, 'token_malformed');
    await refuses({ exp: NOW + 60, nbf: 'now' as never }, 'token_malformed');
    await refuses({ exp: NOW + 60, iat: null as never }, 'token_malformed');
  });
});

describe('issuer and audience', () => {
  it('accepts aud as a string or a list holding the audience', async () => {
    await accepts({ exp: NOW + 60, aud: 'api' });
    await accepts({ exp: NOW + 60, aud: ['other', 'api'] });
  });

  it('refuses aud that misses the audience, or is absent', async () => {
    await refuses({ exp: NOW + 60, aud: ['other', 'API'] }, 'audience_mismatch');
    await refuses({ exp: NOW + 60, aud: 'api2' }, 'audience_mismatch');
    await refuses({ exp: NOW + 60, aud: undefined }, 'audience_mismatch');
  });

  it('refuses a wrong or absent iss', async () => {
    await refuses({ exp: NOW + 60, iss: 'https://idp.example/' }, 'issuer_mismatch');
    await refuses({ exp: NOW + 60, iss: undefined }, 'issuer_mismatch');
  });

  it('checks neither when none is configured', async () => {
    const publicKey = await importJWK(key.publicJwk, 'ES256');
    const open = createTokenVerifier(() => publicKey, {
      jwt: { issuer: null, audience: null, algorithms: ['ES256'], leewaySeconds: 0 },
      now,
    });
    const claims = { iss: 'anyone', aud: 'anything', exp: NOW + 1 };
    expect(await open(await mintToken(key, claims))).toEqual(claims);
    await expect(open(await mintToken(key, { exp: NOW }))).rejects.toMatchObject(failure('token_expired'));
  });
});

describe('shape checks before any crypto', () => {
  it(`refuses a token over ${MAX_TOKEN_BYTES} characters without asking for a key`, async () => {
    let asked = 0;
    const counting = createTokenVerifier(
      () => {
        asked += 1;
        return new Uint8Array(32);
      },
      { jwt: { issuer: null, audience: null, algorithms: ['HS256'], leewaySeconds: 0 }, now },
    );
    const big = await mintToken(key, { exp: NOW + 60, pad: 'x'.repeat(MAX_TOKEN_BYTES) });
    await expect(counting(big)).rejects.toMatchObject(failure('token_malformed'));
    await expect(counting('a.b.c.d.e')).rejects.toMatchObject(failure('token_malformed'));
    expect(asked).toBe(0);
  });

  it('refuses a payload that is a JSON array even with a valid signature', async () => {
    const token = await signRaw(key.signingKey, { alg: 'ES256', kid: key.kid }, [{ exp: NOW + 60 }]);
    await expect(verify(token)).rejects.toMatchObject(failure('token_malformed'));
  });
});
