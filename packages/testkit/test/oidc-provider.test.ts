import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { OIDC_RESOURCE, startOidcProvider, type OidcProvider } from '../src/index.js';

describe('startOidcProvider', () => {
  let provider: OidcProvider;
  beforeAll(async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    provider = await startOidcProvider('ES256', 'kit-key', {
      id: 'admin-job',
      scope: 'reports:read',
      claims: { roles: ['admin'], permissions: 'admin invoke' },
    });
    warn.mockRestore();
  });
  afterAll(() => provider.close());

  it('serves discovery on loopback and issues verifiable JWT access tokens for the resource', async () => {
    expect(provider.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const token = await provider.obtainToken();
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: 'kit-key' });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(provider.jwksUri)), {
      issuer: provider.issuer,
      audience: OIDC_RESOURCE,
    });
    expect(payload).toMatchObject({
      sub: provider.clientId,
      scope: 'invoke read',
      realm_access: { roles: ['reporter'] },
      org: { id: 'acme' },
    });
    expect(decodeJwt(await provider.obtainToken()).jti).not.toBe(payload.jti);
    expect(provider.paths).toContain('/.well-known/openid-configuration');
  });

  it('issues tokens of a further client with its own scope and claims', async () => {
    const payload = decodeJwt(await provider.obtainToken('admin-job'));
    expect(payload).toMatchObject({
      sub: 'admin-job',
      scope: 'reports:read',
      roles: ['admin'],
      permissions: 'admin invoke',
    });
    expect(payload.realm_access).toBeUndefined();
  });

  it('says so when it gives no token (an unknown client)', async () => {
    await expect(provider.obtainToken('nobody')).rejects.toThrow(
      /^the provider gave no token \(HTTP 401 invalid_client: /,
    );
  });
});
