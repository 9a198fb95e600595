import type { Logger } from '@authlayer/core';

/** One captured log line. */
export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly message: string;
}

/** A {@link Logger} that keeps what it is told. */
export interface CaptureLogger extends Logger {
  readonly lines: LogLine[];
  /** The same lines as text, `level: message`, for a compact `toEqual`. */
  readonly text: string[];
}

/** A logger for tests: `lines` holds every call, in order. */
export function createCaptureLogger(): CaptureLogger {
  const lines: LogLine[] = [];
  return {
    lines,
    get text() {
      return lines.map((line) => `${line.level}: ${line.message}`);
    },
    info: (message) => void lines.push({ level: 'info', message }),
    warn: (message) => void lines.push({ level: 'warn', message }),
    error: (message) => void lines.push({ level: 'error', message }),
  };
}
