import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { createHash, X509Certificate } from 'node:crypto';
import { EmbeddedJWK, jwtVerify } from 'jose';
import {
  createDpopKey,
  createTestCertificates,
  startOidcProvider,
  startOpaqueTokenProvider,
  type TestCertificates,
} from '../src/index.js';

// The helpers for sender-constrained tokens: DPoP proofs, certificates made with openssl, and
// bound tokens from the real oidc-provider (JWT and opaque).
let certs: TestCertificates;
beforeAll(async () => {
  certs = await createTestCertificates();
});
afterAll(() => certs.remove());

const thumbprint = (pem: string) => createHash('sha256').update(new X509Certificate(pem).raw).digest('base64url');
const payloadOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as Record<string, unknown>;

describe('createDpopKey', () => {
  it('makes proofs that verify with their embedded public key: htu without query, ath of the token', async () => {
    const key = await createDpopKey();
    const proof = await key.proof({ method: 'GET', url: 'https://api.example.com/x?y=1#z', token: 'tok', jti: 'j' });
    const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt' });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', jwk: key.publicJwk });
    expect(payload).toMatchObject({
      jti: 'j',
      htm: 'GET',
      htu: 'https://api.example.com/x',
      ath: createHash('sha256').update('tok').digest('base64url'),
    });
    expect(key.privateJwk.d).toEqual(expect.any(String));
    expect(key.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('createTestCertificates', () => {
  it('makes a CA that issued the server and both clients, and a stranger it did not', () => {
    const ca = new X509Certificate(certs.ca.cert);
    for (const pair of [certs.server, certs.client, certs.otherClient])
      expect(new X509Certificate(pair.cert).checkIssued(ca)).toBe(true);
    expect(new X509Certificate(certs.stranger.cert).checkIssued(ca)).toBe(false);
    expect(new X509Certificate(certs.server.cert).checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(thumbprint(certs.client.cert)).not.toBe(thumbprint(certs.otherClient.cert));
    expect(existsSync(certs.dir)).toBe(true);
  });
});

describe('obtainBoundToken', () => {
  it('the JWT provider binds to a DPoP key or a certificate (not both); a bound client without one gets none', async () => {
    const provider = await startOidcProvider('ES256', 'bound');
    try {
      const key = await createDpopKey();
      expect(payloadOf(await provider.obtainBoundToken({ dpop: key })).cnf).toEqual({ jkt: key.jkt });
      expect(payloadOf(await provider.obtainBoundToken({ certificate: certs.client.cert })).cnf).toEqual({
        'x5t#S256': thumbprint(certs.client.cert),
      });
      // oidc-provider allows one proof-of-possession mechanism per token.
      await expect(provider.obtainBoundToken({ dpop: key, certificate: certs.client.cert })).rejects.toThrow(
        'the provider gave no token (HTTP 400 invalid_request: multiple proof-of-possession mechanisms are not allowed)',
      );
      await expect(provider.obtainToken('bound-job')).rejects.toThrow(/^the provider gave no token \(HTTP 400 /);
    } finally {
      await provider.close();
    }
  });

  it('the opaque provider binds too, and its introspection answers say so in cnf', async () => {
    const provider = await startOpaqueTokenProvider();
    try {
      const key = await createDpopKey();
      const { id, secret } = provider.clients.post;
      const introspect = async (token: string) =>
        (await (
          await fetch(provider.introspectionEndpoint, {
            method: 'POST',
            body: new URLSearchParams({ token, client_id: id, client_secret: secret }),
          })
        ).json()) as Record<string, unknown>;
      expect(await introspect(await provider.obtainBoundToken({ dpop: key }))).toMatchObject({
        active: true,
        token_type: 'DPoP',
        cnf: { jkt: key.jkt },
      });
      expect(await introspect(await provider.obtainBoundToken({ certificate: certs.client.cert }))).toMatchObject({
        active: true,
        cnf: { 'x5t#S256': thumbprint(certs.client.cert) },
      });
    } finally {
      await provider.close();
    }
  });
});
