import type { Logger } from '@authlayer/core';

/** The logger used when none is given: one line per message on stderr, prefixed `[authlayer]`. */
export const consoleLogger: Logger = Object.freeze({
  info: (message: string) => console.error(`[authlayer] ${message}`),
  warn: (message: string) => console.error(`[authlayer] WARNING: ${message}`),
  error: (message: string) => console.error(`[authlayer] ERROR: ${message}`),
});
