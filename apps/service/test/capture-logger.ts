import type { Logger } from '@authlayer/core';

/** A logger that keeps every line, to assert on what was (and was not) logged. */
export function captureLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => lines.push(`info: ${message}`),
    warn: (message) => lines.push(`warn: ${message}`),
    error: (message) => lines.push(`error: ${message}`),
  };
}
