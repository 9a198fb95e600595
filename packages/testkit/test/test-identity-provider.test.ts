import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startTestIdentityProvider, type TestIdentityProvider } from '../src/index.js';

// The mode's section as written: the jwt and oauth2 packages check it (this package is their test
// dependency, so it does not load them); tests/e2e runs these configs through the real handlers.
const sectionOf = (raw: unknown, mode: 'jwt' | 'oauth2'): Record<string, unknown> =>
  parseAuthConfig(raw).modeSections?.[mode] as Record<string, unknown>;

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterAll(() => idp.close());

const MINE = {
  auth: {
    mode: 'jwt',
    jwt: {
      jwks_url: 'https://sso.example.com/certs',
      issuer: 'https://sso.example.com',
      claims: { roles: 'realm_access.roles' },
    },
  },
  roles: [{ name: 'admin', permissions: ['invoke'] }],
  access: { 'POST /invoke': { permissions: ['invoke'] } },
};

describe('startTestIdentityProvider', () => {
  it('signs JWTs that its JWKS verifies, with iss, aud, iat and exp set', async () => {
    const token = await idp.signToken({ sub: 'u-1', realm_access: { roles: ['admin'] } }, { expiresIn: 60 });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(idp.jwksUrl)), {
      issuer: idp.issuer,
      audience: idp.audience,
    });
    expect(payload).toMatchObject({ sub: 'u-1', realm_access: { roles: ['admin'] } });
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);
    expect(idp.hits.jwks).toBe(1);
  });

  it('points your config at itself for jwt, keeping your claims, roles and access', () => {
    const config = parseAuthConfig(idp.config('jwt', MINE));
    expect(sectionOf(idp.config('jwt', MINE), 'jwt')).toEqual({
      jwks_url: idp.jwksUrl,
      public_key_env: null,
      issuer: idp.issuer,
      audience: idp.audience,
      algorithms: ['RS256'],
      claims: { roles: 'realm_access.roles' },
    });
    expect(config.roles).toEqual(MINE.roles);
    expect(config.access['POST /invoke']).toMatchObject({ permissions: ['invoke'] });
  });

  it('points your config at its introspection endpoint for oauth2, which answers its opaque tokens', async () => {
    const config = parseAuthConfig(idp.config('oauth2', MINE));
    expect(config.mode).toBe('oauth2');
    const oauth2 = sectionOf(idp.config('oauth2', MINE), 'oauth2');
    expect(oauth2).toMatchObject({
      introspection_url: idp.introspectionUrl,
      client_secret_env: 'OAUTH2_CLIENT_SECRET',
      issuer: idp.issuer,
    });
    const token = idp.issueOpaqueToken({ sub: 'u-2' });
    const form = {
      token,
      client_id: oauth2.client_id as string,
      client_secret: idp.env.OAUTH2_CLIENT_SECRET as string,
    };
    const answer = await (
      await fetch(idp.introspectionUrl, { method: 'POST', body: new URLSearchParams(form) })
    ).json();
    expect(answer).toMatchObject({ active: true, sub: 'u-2', aud: idp.audience, iss: idp.issuer });
    idp.revoke(token);
    expect(
      await (await fetch(idp.introspectionUrl, { method: 'POST', body: new URLSearchParams(form) })).json(),
    ).toEqual({ active: false });
    expect(idp.hits.introspection).toBe(2);
  });

  it('makes a whole config when you have none, and tokens without claims', async () => {
    expect(sectionOf(idp.config('jwt'), 'jwt').jwks_url).toBe(idp.jwksUrl);
    const { payload } = await jwtVerify(await idp.signToken(), createRemoteJWKSet(new URL(idp.jwksUrl)));
    expect((payload.exp as number) - (payload.iat as number)).toBe(300);
    expect(idp.issueOpaqueToken()).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });
});
