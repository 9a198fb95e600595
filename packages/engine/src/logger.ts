import { DEFAULTS, type AuthConfig, type Logger } from '@authlayer/core';

/** The logger used when none is given: one line per message on stderr, prefixed `[authlayer]`. */
export const consoleLogger: Logger = Object.freeze({
  info: (message: string) => console.error(`[authlayer] ${message}`),
  warn: (message: string) => console.error(`[authlayer] WARNING: ${message}`),
  error: (message: string) => console.error(`[authlayer] ERROR: ${message}`),
});

/**
 * The request headers that no log line may hold, in lower case: `authorization`,
 * `proxy-authorization`, `cookie`, the configured API key header, and the default one
 * (`x-api-key`, which clients send out of habit even when another is configured). For a
 * logger's redaction list wherever a request is logged.
 */
export function secretHeaders(config: AuthConfig): string[] {
  const headers = ['authorization', 'proxy-authorization', 'cookie', DEFAULTS.apiKeys.header, config.apiKeys.header];
  return [...new Set(headers.map((name) => name.toLowerCase()))];
}
