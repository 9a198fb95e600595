import type { AuthConfig, Logger } from '@authlayer/core';

/** The logger used when none is given: one line per message on stderr, prefixed `[authlayer]`. */
export const consoleLogger: Logger = Object.freeze({
  info: (message: string) => console.error(`[authlayer] ${message}`),
  warn: (message: string) => console.error(`[authlayer] WARNING: ${message}`),
  error: (message: string) => console.error(`[authlayer] ERROR: ${message}`),
});

/**
 * The request headers that no log line may hold, in lower case: `authorization`,
 * `proxy-authorization`, `cookie` and the configured API key header. For a logger's redaction
 * list wherever a request is logged.
 */
export function secretHeaders(config: AuthConfig): string[] {
  return [...new Set(['authorization', 'proxy-authorization', 'cookie', config.apiKeys.header.toLowerCase()])];
}
