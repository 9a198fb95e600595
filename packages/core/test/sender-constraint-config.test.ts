import { describe, expect, it } from '@jest/globals';
import { ConfigError, dpopChallenge, parseAuthConfig } from '../src/index.js';
import { readSchemeToken } from '../src/internal.js';

// auth.jwt / auth.oauth2: dpop, dpop_algorithms, certificate_bound; the top-level tls section.
const messageOf = (raw: unknown): string => {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('parsed');
};

describe('sender-constrained tokens in the config', () => {
  it('reads dpop, dpop_algorithms (without repeats) and certificate_bound in jwt and oauth2', () => {
    const config = parseAuthConfig({
      auth: {
        jwt: { dpop: 'required', dpop_algorithms: ['ES256', 'ES256', 'PS256'], certificate_bound: 'allowed' },
        oauth2: { dpop: 'allowed' },
      },
    });
    expect(config.jwt).toMatchObject({
      dpop: 'required',
      dpopAlgorithms: ['ES256', 'PS256'],
      certificateBound: 'allowed',
    });
    expect(config.oauth2).toMatchObject({ dpop: 'allowed', certificateBound: 'off' });
  });

  it.each([
    [{ auth: { jwt: { dpop: 'yes' } } }, 'auth.jwt.dpop: must be one of: off, allowed, required'],
    [
      { auth: { jwt: { dpop_algorithms: ['HS256'] } } },
      'auth.jwt.dpop_algorithms[0]: must be one of: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519',
    ],
    [
      { auth: { oauth2: { dpop_algorithms: ['none'] } } },
      'auth.oauth2.dpop_algorithms[0]: must be one of: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, Ed25519',
    ],
    [{ auth: { jwt: { dpop_algorithms: [] } } }, 'auth.jwt.dpop_algorithms: must list at least one algorithm'],
    [{ auth: { oauth2: { certificate_bound: true } } }, 'auth.oauth2.certificate_bound: must be one of'],
    [
      { auth: { jwt: { providers: [{ issuer: 'x', jwks_url: 'https://x', dpop: 'allowed' }] } } },
      'auth.jwt.providers[0].dpop: unknown field',
    ],
  ])('refuses %j', (raw, message) => {
    expect(messageOf(raw)).toContain(message);
  });
});

describe('tls', () => {
  it('is null when absent; paths and a lower-cased header when set', () => {
    expect(parseAuthConfig({ auth: {} }).tls).toBeNull();
    expect(
      parseAuthConfig({ auth: {}, tls: { cert_file: 'c.pem', key_file: 'k.pem', client_ca_file: 'ca.pem' } }).tls,
    ).toEqual({ certFile: 'c.pem', keyFile: 'k.pem', clientCaFile: 'ca.pem', clientCertHeader: null });
    expect(parseAuthConfig({ auth: {}, tls: { client_cert_header: 'X-Client-Cert' } }).tls).toEqual({
      certFile: null,
      keyFile: null,
      clientCaFile: null,
      clientCertHeader: 'x-client-cert',
    });
  });

  it.each([
    [{ cert_file: 'c.pem' }, 'tls.key_file: cert_file and key_file go together'],
    [{ key_file: 'k.pem' }, 'tls.cert_file: cert_file and key_file go together'],
    [{ client_ca_file: 'ca.pem', client_cert_header: 'x' }, 'tls.client_ca_file: needs cert_file and key_file'],
    [
      { cert_file: 'c', key_file: 'k', client_ca_file: 'ca', client_cert_header: 'x' },
      'tls.client_cert_header: set client_ca_file',
    ],
    [{}, 'tls: needs cert_file and key_file, or client_cert_header'],
    [{ client_cert_header: 'X Cert' }, 'tls.client_cert_header: must be a header name'],
    [{ cert_file: '', key_file: 'k' }, 'tls.cert_file: must not be empty'],
  ])('refuses %j', (tls, message) => {
    expect(messageOf({ auth: {}, tls })).toContain(message);
  });
});

describe('dpopChallenge and readSchemeToken', () => {
  it('builds the RFC 9449 §7.1 challenge, bare or with an error', () => {
    expect(dpopChallenge(['ES256', 'RS256'], 'credentials_missing')).toBe('DPoP realm="authlayer", algs="ES256 RS256"');
    expect(dpopChallenge(['ES256'], 'dpop_invalid', true)).toBe(
      'DPoP realm="authlayer", algs="ES256", error="invalid_dpop_proof", error_description="the DPoP proof or the token binding is not valid"',
    );
    expect(dpopChallenge(['ES256'], 'token_expired')).toBe(
      'DPoP realm="authlayer", algs="ES256", error="invalid_token", error_description="the token has expired"',
    );
  });

  it('reads a token of another scheme as readBearerToken reads Bearer', () => {
    expect(readSchemeToken({ headers: { authorization: 'DPoP abc.def' } }, 'dpop')).toEqual({
      kind: 'token',
      token: 'abc.def',
    });
    expect(readSchemeToken({ headers: { authorization: 'dpop abc' } }, 'dpop')).toEqual({
      kind: 'token',
      token: 'abc',
    });
    expect(readSchemeToken({ headers: { authorization: 'Bearer abc' } }, 'dpop')).toEqual({ kind: 'absent' });
    expect(readSchemeToken({ headers: { authorization: 'DPoP\tabc' } }, 'dpop')).toEqual({ kind: 'malformed' });
  });
});
