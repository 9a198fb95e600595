import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AuthHandler } from '@authlayer/core';
import { createCaptureLogger, OIDC_RESOURCE, startOidcProvider, type OidcProvider } from '@authlayer/testkit';
import { decodeProtectedHeader } from 'jose';
import { createJwtHandler } from '../src/index.js';
import { bearer, failure, jwtConfig } from './fixtures.js';

// A real OpenID provider (oidc-provider, started by testkit), on loopback, issuing RFC 9068 JWT
// access tokens through the client credentials grant with an RFC 8707 resource indicator. Real clock.
const RESOURCE = OIDC_RESOURCE;
type RunningProvider = OidcProvider;
const startProvider = startOidcProvider;
const obtainToken = (provider: OidcProvider) => provider.obtainToken();
const CLIENT = { client_id: 'reporting-job' };

async function handlerFor(provider: RunningProvider, algorithms: string[]): Promise<AuthHandler> {
  const config = jwtConfig(
    {
      jwks_url: provider.jwksUri,
      issuer: provider.issuer,
      audience: RESOURCE,
      algorithms,
      claims: { roles: 'realm_access.roles', tenant_id: 'org.id' },
    },
    [{ name: 'reporter', permissions: ['reports:read'] }],
  );
  return createJwtHandler(config, { env: {}, logger: createCaptureLogger() });
}

describe('tokens from a real OpenID provider (oidc-provider)', () => {
  let first: RunningProvider;
  let second: RunningProvider;
  beforeAll(async () => {
    // oidc-provider warns that its in-memory adapter is for development only: true, and fine here.
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    [first, second] = await Promise.all([startProvider('RS256', 'first-key'), startProvider('ES256', 'second-key')]);
    expect(warn.mock.calls.flat().join('\n')).toMatch(
      /^(oidc-provider WARNING: Unsupported runtime[^\n]*\n)?(oidc-provider WARNING: a quick start development-only in-memory adapter[^\n]*\n?){2}$/,
    );
    warn.mockRestore();
  });
  afterAll(async () => {
    await Promise.all([first.close(), second.close()]);
  });

  it('accepts a JWT access token issued over HTTP, verified through the jwks_uri', async () => {
    const token = await obtainToken(first);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: 'first-key' });
    const handler = await handlerFor(first, ['RS256', 'ES256']);
    expect(await handler.authenticate(bearer(token))).toEqual({
      method: 'jwt',
      userId: CLIENT.client_id, // RFC 9068 §2.2: without a resource owner, sub is the client
      email: null,
      name: null,
      roles: ['reporter'],
      permissions: ['reports:read'],
      scopes: ['invoke', 'read'],
      tenantId: 'acme',
    });
  });

  it("refuses a token of a second provider (other keys, other issuer), and accepts it at that provider's handler", async () => {
    const foreign = await obtainToken(second);
    const trustsFirst = await handlerFor(first, ['RS256', 'ES256']);
    await expect(trustsFirst.authenticate(bearer(foreign))).rejects.toMatchObject(failure('signature_invalid'));
    const trustsSecond = await handlerFor(second, ['ES256']);
    expect(await trustsSecond.authenticate(bearer(foreign))).toMatchObject({
      userId: CLIENT.client_id,
      tenantId: 'acme',
    });
    // ... and the first provider's token is refused there: its RS256 is not allowed.
    await expect(trustsSecond.authenticate(bearer(await obtainToken(first)))).rejects.toMatchObject(
      failure('algorithm_not_allowed'),
    );
  });

  it('refuses a token for the right keys but the wrong configured issuer or audience', async () => {
    const token = await obtainToken(first);
    const base = { jwks_url: first.jwksUri, algorithms: ['RS256'] };
    const deps = { env: {}, logger: createCaptureLogger() };
    const wrongIssuer = await createJwtHandler(jwtConfig({ ...base, issuer: second.issuer }), deps);
    await expect(wrongIssuer.authenticate(bearer(token))).rejects.toMatchObject(failure('issuer_mismatch'));
    const wrongAudience = await createJwtHandler(jwtConfig({ ...base, audience: 'urn:other' }), deps);
    await expect(wrongAudience.authenticate(bearer(token))).rejects.toMatchObject(failure('audience_mismatch'));
  });
});
