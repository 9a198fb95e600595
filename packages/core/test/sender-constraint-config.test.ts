import { describe, expect, it } from '@jest/globals';
import { ConfigError, dpopChallenge, parseAuthConfig } from '../src/index.js';
import { readSchemeToken } from '../src/internal.js';

// The top-level tls section, and the DPoP challenge and scheme (the fields of auth.jwt and auth.oauth2
// are core's senderConstraintFields, proven in section-fields.test.ts and in their packages).
const messageOf = (raw: unknown): string => {
  try {
    parseAuthConfig(raw);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('parsed');
};

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
