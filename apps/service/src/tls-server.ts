import { ConfigError, type AuthConfig, type TlsConfig } from '@authlayer/core';
import { defaultSectionKey } from '@authlayer/core/internal';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import { isAbsolute, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';

/** What the HTTPS listener is made of, read from `tls`'s files; `null`: plain HTTP. */
export type TlsOptions = Pick<ServerOptions, 'cert' | 'key' | 'ca' | 'requestCert' | 'rejectUnauthorized'>;

/**
 * Reads the files of the `tls` section (paths relative to the config file's folder) and checks
 * that they make a TLS context, so a missing file or a key that is not the certificate's is a
 * start-up failure naming the field and the path, never the content. `null` without `cert_file`
 * (plain HTTP, a proxy in front). With `client_ca_file` every client is asked for a certificate,
 * but a connection without one is kept (`rejectUnauthorized: false`): public routes and unbound
 * tokens still work, and a bound token counts only a certificate those CAs issued (the socket's
 * `authorized`).
 *
 * @throws ConfigError naming `tls.cert_file`, `tls.key_file` or `tls.client_ca_file`
 */
export async function readTlsOptions(tls: TlsConfig | null, configDir: string): Promise<TlsOptions | null> {
  if (tls?.certFile == null || tls.keyFile === null) return null;
  const read = async (field: string, path: string) => {
    const full = isAbsolute(path) ? path : resolve(configDir, path);
    try {
      return await readFile(full);
    } catch (error) {
      throw new ConfigError({
        path: `tls.${field}`,
        message: `cannot read ${full} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      });
    }
  };
  const cert = await read('cert_file', tls.certFile);
  const key = await read('key_file', tls.keyFile);
  const ca = tls.clientCaFile === null ? undefined : await read('client_ca_file', tls.clientCaFile);
  try {
    createSecureContext({ cert, key });
  } catch {
    throw new ConfigError({
      path: 'tls.key_file',
      message: 'cert_file and key_file are not a PEM certificate and its private key',
    });
  }
  if (ca !== undefined) {
    try {
      // The first certificate must parse (createSecureContext ignores what is not PEM).
      new X509Certificate(ca);
    } catch {
      throw new ConfigError({ path: 'tls.client_ca_file', message: 'is not a PEM certificate list' });
    }
  }
  return ca === undefined ? { cert, key } : { cert, key, ca, requestCert: true, rejectUnauthorized: false };
}

/**
 * `certificate_bound: required` needs a client certificate on every request, and the service sees
 * one only through `tls.client_ca_file` (its own TLS listener asks) or `tls.client_cert_header` (a
 * proxy's header). Without either no request could pass, so the service refuses to start (and
 * `--check` fails) rather than answer 401 to everyone. A library user's own HTTPS server may see
 * certificates without `tls`, so this is the service's rule, not the config's.
 *
 * @throws ConfigError naming each active mode's `certificate_bound`
 */
export function checkCertificateSource(config: Pick<AuthConfig, 'modes' | 'modeSections' | 'tls'>): void {
  if (config.tls?.clientCaFile != null || config.tls?.clientCertHeader != null) return;
  // Each listed mode's section as written (its package checks the field's values).
  const sections = config.modes
    .map(defaultSectionKey)
    .filter(
      (key) =>
        (config.modeSections?.[key] as { certificate_bound?: unknown } | undefined)?.certificate_bound === 'required',
    );
  if (sections.length === 0) return;
  throw new ConfigError(
    sections.map((key) => ({
      path: `auth.${key}.certificate_bound`,
      message:
        'required needs tls.client_ca_file or tls.client_cert_header: this service sees no client certificate, so every request would be refused',
    })),
  );
}

/** An HTTPS server with `options`, or a plain HTTP one for `null`; not listening yet. */
export function createServer(options: TlsOptions | null, listener: RequestListener): Server {
  return options === null ? createHttpServer(listener) : createHttpsServer(options, listener);
}
