/** Every line a JSON logger (pino) wrote, kept in memory. */
export interface LogLineCapture {
  /** A destination to hand the logger: it takes each line as it is written. */
  readonly destination: {
    /** Takes a chunk of output, one or more lines. */
    write(line: string): void;
  };
  /** The raw lines, in order, without their newline. */
  readonly lines: string[];
  /** Each line parsed as JSON; throws when a line is not JSON (a test then fails, as it should). */
  records(): Record<string, unknown>[];
}

/**
 * Captures a JSON logger's output, e.g. `pino(options, capture.destination)`, so a test can
 * check every line: that it is JSON, what it holds, and that it holds no secret.
 */
export function captureLogLines(): LogLineCapture {
  const lines: string[] = [];
  return {
    destination: { write: (chunk) => void lines.push(...chunk.split('\n').filter((line) => line !== '')) },
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
