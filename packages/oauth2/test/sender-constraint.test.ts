import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createDpopKey,
  OIDC_RESOURCE,
  type DpopKey,
  type OpaqueTokenProvider,
} from '@authlayer/testkit';
import { createOAuth2Handler } from '../src/oauth2-handler.js';
import { oauth2Config, startProvider } from './provider.js';

// The introspection answer's cnf binds an opaque token (RFC 9449 §6.2): a DPoP-bound token of the
// real oidc-provider needs its proof on every request, a cached answer included.
const URL_ = 'https://api.example.com/invoke';
let provider: OpaqueTokenProvider;
let client: DpopKey;
beforeAll(async () => {
  provider = await startProvider();
  client = await createDpopKey();
});
afterAll(() => provider.close());

async function handlerWith(fields: Record<string, unknown>, seen?: string[]) {
  // The provider's tokens name its resource: without `audience`, the handler would take the
  // resource's identifier (the URL the proofs' htu is checked against) as the audience.
  const config = oauth2Config(provider, { audience: OIDC_RESOURCE, ...fields });
  return createOAuth2Handler(
    { ...config, resource: { identifier: 'https://api.example.com', name: null, documentation: null } },
    {
      env: { OAUTH2_CLIENT_SECRET: provider.clients.basic.secret },
      logger: createCaptureLogger(),
      ...(seen === undefined ? {} : { replayCache: { firstSeen: (key: string) => (seen.push(key), true) } }),
    },
  );
}

const dpopRequest = (token: string, proof: string) => ({
  headers: { authorization: `DPoP ${token}`, dpop: proof },
  method: 'GET',
  originalUrl: '/invoke',
});

describe('oauth2 with dpop: allowed', () => {
  it('accepts the bound token with a fresh proof each time, the second from the cached answer', async () => {
    const seen: string[] = [];
    const handler = await handlerWith({ dpop: 'allowed' }, seen);
    const token = await provider.obtainBoundToken({ dpop: client });
    const before = provider.introspections;
    for (let i = 0; i < 2; i += 1) {
      const proof = await client.proof({ method: 'GET', url: URL_, token });
      await expect(handler.authenticate(dpopRequest(token, proof))).resolves.toMatchObject({
        method: 'oauth2',
        userId: 'reporting-job',
      });
    }
    expect(provider.introspections).toBe(before + 1);
    expect(seen).toHaveLength(2);
    expect(handler.recognize?.(dpopRequest(token, 'p'))).toBe('likely');
    expect(handler.securitySchemes?.().map((scheme) => scheme.name)).toEqual(['BearerAuth', 'DPoPAuth']);
    expect(handler.senderConstraint?.()).toMatchObject({ dpop: 'allowed', certificateBound: 'off' });
  });

  it('refuses the bound token as Bearer (cached answer or not) and a wrong proof, in DPoP challenges', async () => {
    const handler = await handlerWith({ dpop: 'allowed', dpop_algorithms: ['ES256'] });
    const token = await provider.obtainBoundToken({ dpop: client });
    await expect(handler.authenticate({ headers: { authorization: `Bearer ${token}` } })).rejects.toMatchObject({
      reason: 'dpop_invalid',
      challenge:
        'DPoP realm="authlayer", algs="ES256", error="invalid_token", error_description="the DPoP proof or the token binding is not valid", Bearer realm="authlayer"',
    });
    const wrong = await client.proof({ method: 'POST', url: URL_, token });
    await expect(handler.authenticate(dpopRequest(token, wrong))).rejects.toMatchObject({
      reason: 'dpop_invalid',
      challenge: expect.stringContaining('error="invalid_dpop_proof"'),
    });
  });

  it('answers an inactive token and no credentials with the DPoP challenge beside Bearer', async () => {
    const handler = await handlerWith({ dpop: 'allowed', dpop_algorithms: ['ES256'] });
    await expect(handler.authenticate(dpopRequest('not-a-token', 'p'))).rejects.toMatchObject({
      reason: 'credentials_invalid',
      challenge:
        'DPoP realm="authlayer", algs="ES256", error="invalid_token", error_description="the credentials are not valid", Bearer realm="authlayer"',
    });
    await expect(handler.authenticate({ headers: {} })).rejects.toMatchObject({
      reason: 'credentials_missing',
      challenge: 'Bearer realm="authlayer", DPoP realm="authlayer", algs="ES256"',
    });
    expect(handler.recognize?.({ headers: {} })).toBeUndefined();
  });
});
