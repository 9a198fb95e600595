import { z } from 'zod';
import { text, type SectionIssue } from '../fields.js';

// The top-level `tls` section: the reference service listens on HTTPS and may ask for client
// certificates (RFC 8705 certificate-bound tokens), or trusts a proxy's header for them.

// RFC 9110 §5.6.2: a field name is a token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

export const tlsSchema = z
  .strictObject({
    cert_file: text.optional(),
    key_file: text.optional(),
    client_ca_file: text.optional(),
    client_cert_header: z
      .string()
      .regex(HEADER_NAME, 'must be a header name (RFC 9110 token, 1 to 64 characters)')
      .nullable()
      .optional(),
  })
  .nullable()
  .default(null);

/** `tls`; `null` (the default) when absent: plain HTTP, no client certificates. */
export interface TlsConfig {
  /** PEM certificate chain of the service (HTTPS); `null` when a proxy terminates TLS. */
  readonly certFile: string | null;
  /** PEM private key of `certFile`. */
  readonly keyFile: string | null;
  /** PEM CA certificates: ask every client for a certificate and accept those they issued. */
  readonly clientCaFile: string | null;
  /** A header, lower case, where a trusted proxy puts the client certificate (URL-encoded PEM); read only when set. */
  readonly clientCertHeader: string | null;
}

export function toTlsConfig(raw: z.output<typeof tlsSchema>): TlsConfig | null {
  if (raw === null) return null;
  return {
    certFile: raw.cert_file ?? null,
    keyFile: raw.key_file ?? null,
    clientCaFile: raw.client_ca_file ?? null,
    clientCertHeader: raw.client_cert_header?.toLowerCase() ?? null,
  };
}

/**
 * The rules across fields: `cert_file` and `key_file` together; `client_ca_file` needs them;
 * a certificate comes from the connection (`client_ca_file`) or from a proxy's header, not both.
 */
export function tlsIssues(tls: TlsConfig | null): SectionIssue[] {
  if (tls === null) return [];
  const issues: SectionIssue[] = [];
  const at = (field: string | null, message: string) =>
    void issues.push({ path: ['tls', ...(field === null ? [] : [field])], message });
  if ((tls.certFile === null) !== (tls.keyFile === null))
    at(tls.certFile === null ? 'cert_file' : 'key_file', 'cert_file and key_file go together');
  if (tls.clientCaFile !== null && tls.certFile === null) at('client_ca_file', 'needs cert_file and key_file');
  if (tls.clientCaFile !== null && tls.clientCertHeader !== null)
    at(
      'client_cert_header',
      'set client_ca_file (this service asks for certificates) or client_cert_header (a proxy does), not both',
    );
  if (tls.certFile === null && tls.keyFile === null && tls.clientCertHeader === null)
    at(null, 'needs cert_file and key_file, or client_cert_header');
  return issues;
}
