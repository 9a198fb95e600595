import type { AuthConfig, AuthHandler, Logger } from '@authlayer/core';

/** The logger used when none is given: one line per message on stderr, prefixed `[authlayer]`. */
export const consoleLogger: Logger = Object.freeze({
  info: (message: string) => console.error(`[authlayer] ${message}`),
  warn: (message: string) => console.error(`[authlayer] WARNING: ${message}`),
  error: (message: string) => console.error(`[authlayer] ERROR: ${message}`),
});

/**
 * What {@link secretHeaders} reads the credential headers from: a handler (its own
 * `credentialHeaders`; a combined handler has every mode's), something that holds the serving
 * handler and config (the middleware: `secretHeaders(auth)`), or a config alone (before any
 * handler is made: a mode section's `header` field as written, such as `auth.api_keys.header`).
 */
export type SecretHeaderSource =
  | Pick<AuthHandler, 'credentialHeaders'>
  | { readonly handler: Pick<AuthHandler, 'credentialHeaders'>; readonly config?: AuthConfig }
  | AuthConfig;

// Never logged, whatever the modes: the standard credential headers, and the default API key
// header, which clients send out of habit even when another one is configured (or none is).
const ALWAYS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];

/**
 * The request headers that no log line may hold, in lower case: `authorization`,
 * `proxy-authorization`, `cookie`, `x-api-key`, and every header the loaded modes' handlers carry
 * credentials in (`AuthHandler.credentialHeaders`: the configured API key header, a mode package's
 * own signature header). For a logger's redaction list wherever a request is logged.
 *
 * @example
 * requestLog(log, () => secretHeaders(auth)); // asked per request: a reload may change the headers
 */
export function secretHeaders(...sources: readonly SecretHeaderSource[]): string[] {
  const headers = [...ALWAYS, ...sources.flatMap(headersOf)];
  return [...new Set(headers.map((name) => name.toLowerCase()))];
}

function headersOf(source: SecretHeaderSource): readonly string[] {
  if ('handler' in source) return [...headersOf(source.handler), ...(source.config ? headersOf(source.config) : [])];
  if ('modes' in source) return writtenHeaders(source);
  return source.credentialHeaders ?? [];
}

/** Each mode section's `header` as written: unchecked yet, so only a string counts. */
function writtenHeaders(config: AuthConfig): string[] {
  return Object.values(config.modeSections ?? {}).flatMap((section) => {
    const header = (section as { header?: unknown } | null)?.header;
    return typeof header === 'string' ? [header] : [];
  });
}
