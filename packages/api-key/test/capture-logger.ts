import type { Logger } from '@authlayer/core';

/** A logger that keeps every line (`warn: ...`) so a test can read what operators would see. */
export interface CaptureLogger extends Logger {
  readonly lines: string[];
}

export function createCaptureLogger(): CaptureLogger {
  const lines: string[] = [];
  const at = (level: string) => (message: string) => {
    lines.push(`${level}: ${message}`);
  };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}
