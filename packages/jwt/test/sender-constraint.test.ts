import { beforeAll, describe, expect, it } from '@jest/globals';
import { createDpopKey, createSigningKey, type DpopKey, type SigningKey } from '@authlayer/testkit';
import { bearer, NOW, staticHandler } from './fixtures.js';

// The jwt handler with dpop and certificate_bound on: the binding is checked after the token is
// verified and on every cache hit; the handler's own refusals carry the DPoP challenge too.
const URL_ = 'https://api.example.com/invoke';
let key: SigningKey;
let client: DpopKey;
beforeAll(async () => {
  key = await createSigningKey('ES256');
  client = await createDpopKey();
});

const dpopRequest = (token: string, proof: string) => ({
  headers: { authorization: `DPoP ${token}`, dpop: proof },
  method: 'GET',
  originalUrl: '/invoke',
  protocol: 'https',
  host: 'api.example.com',
});

describe('jwt with dpop: allowed', () => {
  it('accepts a bound token with its proof, verified and cached alike, and says its binding', async () => {
    const { handler, token } = await staticHandler(key, { dpop: 'allowed', dpop_algorithms: ['ES256'] });
    const sent = await token({ cnf: { jkt: client.jkt } });
    for (let i = 0; i < 3; i += 1) {
      const proof = await client.proof({ method: 'GET', url: URL_, token: sent, iat: NOW });
      await expect(handler.authenticate(dpopRequest(sent, proof))).resolves.toMatchObject({ userId: 'user-1' });
    }
    expect(handler.senderConstraint?.()).toEqual({
      dpop: 'allowed',
      dpopAlgorithms: ['ES256'],
      certificateBound: 'off',
    });
    expect(handler.securitySchemes?.().map((scheme) => scheme.name)).toEqual(['BearerAuth', 'DPoPAuth']);
    expect(handler.recognize?.(dpopRequest(sent, 'p'))).toBe('certain');
  });

  it('refuses a replayed proof on a cache hit, and the bound token as Bearer (sync, cached or not)', async () => {
    const { handler, token } = await staticHandler(key, { dpop: 'allowed', dpop_algorithms: ['ES256'] });
    const sent = await token({ cnf: { jkt: client.jkt } });
    const proof = await client.proof({ method: 'GET', url: URL_, token: sent, iat: NOW });
    await handler.authenticate(dpopRequest(sent, proof));
    await expect(handler.authenticate(dpopRequest(sent, proof))).rejects.toMatchObject({ reason: 'dpop_invalid' });
    expect(() => handler.authenticateNow?.(bearer(sent))).toThrow(expect.objectContaining({ reason: 'dpop_invalid' }));
  });

  it('puts its own refusals in the challenge of the scheme used', async () => {
    const { handler } = await staticHandler(key, { dpop: 'allowed', dpop_algorithms: ['ES256'] });
    await expect(handler.authenticate({ headers: { authorization: 'DPoP a.b.c', dpop: 'x' } })).rejects.toMatchObject({
      reason: 'token_malformed',
      challenge:
        'DPoP realm="authlayer", algs="ES256", error="invalid_token", error_description="the token is malformed", Bearer realm="authlayer"',
    });
    await expect(handler.authenticate({ headers: {} })).rejects.toMatchObject({
      reason: 'credentials_missing',
      challenge: 'Bearer realm="authlayer", DPoP realm="authlayer", algs="ES256"',
    });
  });
});

describe('jwt with certificate_bound: required', () => {
  it('refuses a token without cnf["x5t#S256"] synchronously, before the revocation hook', async () => {
    let asked = 0;
    const { handler, token } = await staticHandler(
      key,
      { certificate_bound: 'required' },
      { isRevoked: () => (asked += 1) < 0 },
    );
    const sent = await token();
    expect(() => handler.authenticateNow?.(bearer(sent))).toThrow(
      expect.objectContaining({
        reason: 'certificate_mismatch',
        challenge:
          'Bearer realm="authlayer", error="invalid_token", error_description="the token is not bound to the client certificate"',
      }),
    );
    expect(asked).toBe(0);
    expect(handler.securitySchemes?.().map((scheme) => scheme.name)).toEqual(['BearerAuth']);
  });

  it('allowed: an unbound token is answered synchronously; a given replay cache is the one asked', async () => {
    const seen: string[] = [];
    const { handler, token } = await staticHandler(
      key,
      { certificate_bound: 'allowed', dpop: 'allowed', dpop_algorithms: ['ES256'] },
      { replayCache: { firstSeen: (digest) => (seen.push(digest), true) } },
    );
    expect(handler.authenticateNow?.(bearer(await token()))).toMatchObject({ userId: 'user-1' });
    const sent = await token({ cnf: { jkt: client.jkt } });
    const proof = await client.proof({ method: 'GET', url: URL_, token: sent, iat: NOW });
    await expect(handler.authenticate(dpopRequest(sent, proof))).resolves.toMatchObject({ userId: 'user-1' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
