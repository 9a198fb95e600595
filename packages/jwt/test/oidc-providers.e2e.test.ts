import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { AuthHandler } from '@authlayer/core';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  OIDC_RESOURCE,
  startJwksServer,
  startOidcProvider,
  type CaptureLogger,
  type JwksServer,
  type OidcProvider,
} from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { bearer, failure, jwtConfig } from './fixtures.js';

// Three real OpenID providers (oidc-provider) on loopback, two of them configured through
// `providers` with discovery; an impostor whose discovery document names the first one. Real clock.
const WELL_KNOWN = '/.well-known/openid-configuration';
const ENTRA_CLIENT = 'entra-job';
let keycloakLike: OidcProvider;
let entraLike: OidcProvider;
let unconfigured: OidcProvider;
let impostor: JwksServer;
let handler: AuthHandler;
let logger: CaptureLogger;
const counts = () => [keycloakLike, entraLike, unconfigured, impostor].map((server) => server.paths.length);

beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  [keycloakLike, entraLike, unconfigured] = await Promise.all([
    startOidcProvider('RS256', 'kc-key'),
    startOidcProvider('ES256', 'entra-key', {
      id: ENTRA_CLIENT,
      scope: 'invoke',
      claims: { groups: ['ops'], tid: 'contoso', preferred_username: 'job@contoso' },
    }),
    startOidcProvider('RS256', 'third-key'),
  ]);
  warn.mockRestore();
  impostor = await startJwksServer([(await createSigningKey('RS256', { kid: 'imp' })).publicJwk], {
    discoveryIssuer: keycloakLike.issuer,
  });
  logger = createCaptureLogger();
  const config = jwtConfig(
    {
      audience: OIDC_RESOURCE,
      token_type: 'at+jwt',
      required_claims: ['sub'],
      providers: [
        {
          issuer: keycloakLike.issuer,
          discovery: true,
          algorithms: ['RS256'],
          claims: { roles: 'realm_access.roles', tenant_id: 'org.id' },
        },
        {
          issuer: entraLike.issuer,
          discovery: true,
          algorithms: ['ES256'],
          claims: { roles: 'groups', tenant_id: 'tid', name: 'preferred_username' },
        },
        { issuer: impostor.issuer, discovery: true, algorithms: ['RS256'] },
      ],
    },
    [
      { name: 'reporter', permissions: ['reports:read'] },
      { name: 'ops', permissions: ['deploy'] },
    ],
  );
  handler = await createJwtHandler(config, { env: {}, logger });
});
afterAll(async () => {
  await Promise.all([keycloakLike.close(), entraLike.close(), unconfigured.close(), impostor.close()]);
});

describe('two real OpenID providers through providers, with discovery', () => {
  it("accepts each provider's tokens with its own claims mapping, after one discovery and one key set each", async () => {
    const fromKeycloak = await keycloakLike.obtainToken();
    const fromEntra = await entraLike.obtainToken(ENTRA_CLIENT);
    const before = counts();
    for (let i = 0; i < 3; i += 1) {
      expect(await handler.authenticate(bearer(fromKeycloak))).toMatchObject({
        roles: ['reporter'],
        permissions: ['reports:read'],
        tenantId: 'acme',
      });
      expect(await handler.authenticate(bearer(fromEntra))).toMatchObject({
        roles: ['ops'],
        permissions: ['deploy'],
        tenantId: 'contoso',
        name: 'job@contoso',
      });
    }
    const after = counts();
    expect(after.map((count, index) => count - (before[index] as number))).toEqual([2, 2, 0, 0]);
    expect(keycloakLike.paths.filter((path) => path === WELL_KNOWN || path.includes('jwks'))).toHaveLength(3); // its own start-up read + ours
  });

  it('refuses a token of a third, unconfigured provider with issuer_mismatch and no request to any server', async () => {
    const foreign = await unconfigured.obtainToken();
    const before = counts();
    for (let i = 0; i < 50; i += 1)
      await expect(handler.authenticate(bearer(foreign))).rejects.toMatchObject(failure('issuer_mismatch'));
    expect(counts()).toEqual(before);
  });

  it('never trusts a provider whose discovery document names another issuer', async () => {
    const key = await createSigningKey('RS256', { kid: 'imp' });
    const forged = await mintToken(
      key,
      { iss: impostor.issuer, aud: OIDC_RESOURCE, sub: 'x', exp: Math.floor(Date.now() / 1000) + 60 },
      { typ: 'at+jwt' },
    );
    await expect(handler.authenticate(bearer(forged))).rejects.toMatchObject(failure('key_unavailable'));
    expect(impostor.paths).toEqual([WELL_KNOWN]);
    expect(logger.text).toEqual([
      'error: auth.jwt.providers[2].discovery: the key set cannot be read (the discovery document names another issuer); tokens are refused until it can',
    ]);
    expect(handler.readiness?.()).toMatchObject({ ready: false, keys: 'unavailable' });
  });
});
