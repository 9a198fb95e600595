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
  /** Resolves with the first line (already kept, or still to come) whose `level: message` text matches. */
  waitFor(match: RegExp): Promise<string>;
}

/** A logger for tests: `lines` holds every call, in order. */
export function createCaptureLogger(): CaptureLogger {
  const lines: LogLine[] = [];
  const waiting = new Set<(text: string) => void>();
  const keep = (level: LogLine['level'], message: string) => {
    lines.push({ level, message });
    for (const notify of waiting) notify(`${level}: ${message}`);
  };
  return {
    lines,
    get text() {
      return lines.map((line) => `${line.level}: ${line.message}`);
    },
    waitFor: (match) => {
      const found = lines.map((line) => `${line.level}: ${line.message}`).find((text) => match.test(text));
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve) => {
        const notify = (text: string) => {
          if (!match.test(text)) return;
          waiting.delete(notify);
          resolve(text);
        };
        waiting.add(notify);
      });
    },
    info: (message) => keep('info', message),
    warn: (message) => keep('warn', message),
    error: (message) => keep('error', message),
  };
}
