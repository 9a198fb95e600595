import { soleHeaderValue, type AuthRequest } from '@authlayer/core';
import { createHash, X509Certificate } from 'node:crypto';

/** Larger header values are refused unread: a certificate chain's leaf is a few KiB. */
const MAX_HEADER_CHARS = 16 * 1024;

/**
 * The RFC 8705 §3.1 thumbprint of the request's client certificate (base64url SHA-256 of its
 * DER), or `null` when it has none that counts:
 *
 * - `header` set (a proxy terminates TLS): that header alone, exactly one value, a URL-encoded
 *   PEM certificate (as nginx's `$ssl_client_escaped_cert` and Envoy's XFCC `Cert=` give it);
 * - else the TLS connection's certificate, only when the TLS layer verified it (`authorized`,
 *   against `tls.client_ca_file`).
 */
export function clientCertificateThumbprint(request: AuthRequest, header: string | null): string | null {
  const der = header === null ? socketCertificate(request) : headerCertificate(request, header);
  return der === null ? null : createHash('sha256').update(der).digest('base64url');
}

function socketCertificate(request: AuthRequest): Uint8Array | null {
  const socket = request.socket;
  if (socket?.authorized !== true || typeof socket.getPeerCertificate !== 'function') return null;
  const raw = socket.getPeerCertificate(false)?.raw;
  return raw instanceof Uint8Array && raw.length > 0 ? raw : null;
}

function headerCertificate(request: AuthRequest, header: string): Uint8Array | null {
  const value = soleHeaderValue(request, header);
  if (value === null || value === '' || value.length > MAX_HEADER_CHARS) return null;
  try {
    return new X509Certificate(decodeURIComponent(value)).raw;
  } catch {
    // Not URL-encoding, or not a PEM certificate: no certificate, and the binding fails.
    return null;
  }
}
