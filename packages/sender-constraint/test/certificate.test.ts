import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AuthRequest } from '@authlayer/core';
import { createCaptureLogger, createTestCertificates, type TestCertificates } from '@authlayer/testkit';
import { createHash, X509Certificate } from 'node:crypto';
import { clientCertificateThumbprint, createSenderConstraint } from '../src/index.js';

// RFC 8705 §3: the token's cnf["x5t#S256"] against the client certificate, from the connection
// (verified by the TLS layer) or, only when configured, from a trusted proxy's header.
let certs: TestCertificates;
let thumbprint: string;
beforeAll(async () => {
  certs = await createTestCertificates();
  thumbprint = createHash('sha256').update(new X509Certificate(certs.client.cert).raw).digest('base64url');
});
afterAll(() => certs.remove());

const socketWith = (cert: string | null, authorized = true) => ({
  authorized,
  getPeerCertificate: () => (cert === null ? {} : { raw: new X509Certificate(cert).raw }),
});

describe('clientCertificateThumbprint', () => {
  it('reads a verified TLS client certificate, and nothing the TLS layer did not verify', () => {
    expect(clientCertificateThumbprint({ headers: {}, socket: socketWith(certs.client.cert) }, null)).toBe(thumbprint);
    expect(clientCertificateThumbprint({ headers: {}, socket: socketWith(certs.client.cert, false) }, null)).toBeNull();
    expect(clientCertificateThumbprint({ headers: {}, socket: socketWith(null) }, null)).toBeNull();
    expect(clientCertificateThumbprint({ headers: {}, socket: { authorized: true } }, null)).toBeNull();
    expect(clientCertificateThumbprint({ headers: {} }, null)).toBeNull();
  });

  it('reads the configured header alone (URL-encoded PEM), one value, and never the socket then', () => {
    const header = (value: string | string[]): AuthRequest => ({
      headers: { 'x-client-cert': value },
      socket: socketWith(certs.otherClient.cert),
    });
    expect(clientCertificateThumbprint(header(encodeURIComponent(certs.client.cert)), 'x-client-cert')).toBe(
      thumbprint,
    );
    expect(
      clientCertificateThumbprint(header([encodeURIComponent(certs.client.cert), 'x']), 'x-client-cert'),
    ).toBeNull();
    expect(clientCertificateThumbprint(header('%E0%A4%A'), 'x-client-cert')).toBeNull();
    expect(clientCertificateThumbprint(header('not a certificate'), 'x-client-cert')).toBeNull();
    expect(clientCertificateThumbprint(header('a'.repeat(17_000)), 'x-client-cert')).toBeNull();
    expect(
      clientCertificateThumbprint({ headers: {}, socket: socketWith(certs.client.cert) }, 'x-client-cert'),
    ).toBeNull();
  });
});

describe('certificate_bound', () => {
  const make = (certificateBound: 'allowed' | 'required', dpop: 'off' | 'allowed' = 'off') =>
    createSenderConstraint(
      {
        dpop,
        dpopAlgorithms: ['ES256'],
        certificateBound,
        leewaySeconds: 30,
        resourceIdentifier: null,
        clientCertHeader: null,
      },
      { logger: createCaptureLogger(), now: Date.now },
    )!;
  const withCert = (cert: string): AuthRequest => ({ headers: {}, socket: socketWith(cert) });

  it('allowed: a bound token needs its certificate; an unbound one passes', () => {
    const constraint = make('allowed');
    expect(constraint.check(withCert(certs.client.cert), 'bearer', 't', { 'x5t#S256': thumbprint })).toBeUndefined();
    expect(constraint.check({ headers: {} }, 'bearer', 't', {})).toBeUndefined();
    for (const request of [withCert(certs.otherClient.cert), { headers: {} }]) {
      expect(() => constraint.check(request, 'bearer', 't', { 'x5t#S256': thumbprint })).toThrow(
        expect.objectContaining({
          reason: 'certificate_mismatch',
          challenge:
            'Bearer realm="authlayer", error="invalid_token", error_description="the token is not bound to the client certificate"',
        }),
      );
    }
  });

  it('required: a token without cnf is refused; with DPoP allowed the challenge offers DPoP too', () => {
    const constraint = make('required', 'allowed');
    expect(() => constraint.check(withCert(certs.client.cert), 'bearer', 't', undefined)).toThrow(
      expect.objectContaining({
        reason: 'certificate_mismatch',
        challenge:
          'Bearer realm="authlayer", error="invalid_token", error_description="the token is not bound to the client certificate", DPoP realm="authlayer", algs="ES256"',
      }),
    );
    expect(constraint.config).toEqual({ dpop: 'allowed', dpopAlgorithms: ['ES256'], certificateBound: 'required' });
  });

  it('is null when both bindings are off; its OpenAPI schemes follow dpop', () => {
    const off = createSenderConstraint(
      {
        dpop: 'off',
        dpopAlgorithms: ['ES256'],
        certificateBound: 'off',
        leewaySeconds: 0,
        resourceIdentifier: null,
        clientCertHeader: null,
      },
      { logger: createCaptureLogger(), now: Date.now },
    );
    expect(off).toBeNull();
    const bearer = { name: 'BearerAuth', type: 'http', scheme: 'bearer', description: 'JWT' } as const;
    expect(make('allowed').securitySchemes(bearer)).toEqual([bearer]);
    expect(make('allowed', 'allowed').securitySchemes(bearer)).toEqual([
      bearer,
      {
        name: 'DPoPAuth',
        type: 'http',
        scheme: 'dpop',
        description: "JWT, bound to the client's key by a DPoP proof (RFC 9449; algs ES256)",
      },
    ]);
  });
});
