import type { Logger } from '@authlayer/core';
import { consoleLogger } from '@authlayer/engine';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

// The warnings the contract makes loud (the no-auth fallback of a missing mode package, a JWT
// without `issuer`/`audience`, each `report_only` line) must never vanish. They go through the
// app's logger when it writes them; `Fastify()` with no `logger` (the default) writes nothing, so
// there, as at a level above `warn`, they go to stderr as the Express middleware writes them.

type LevelLogger = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * True when `log` writes a line of `level`: pino (Fastify's logger once on) says so; Fastify's
 * logger when off is abstract-logging's, every level one inherited no-op; another logger given
 * as `loggerInstance` is taken to write.
 */
export function writes(log: LevelLogger, level: 'warn' | 'error'): boolean {
  if (typeof log.isLevelEnabled === 'function') return log.isLevelEnabled(level);
  const off = log.warn === log.error && log.warn === log.info && !Object.hasOwn(log, level);
  return !off;
}

/**
 * The plugin's logger when none is given: `app.log`, asked at each line (its level may change);
 * a warning or an error it would not write goes to stderr instead (`[authlayer] WARNING: ...`).
 */
export function appLogger(app: FastifyInstance): Logger {
  const log = (): LevelLogger => app.log;
  return {
    info: (message) => log().info(message),
    warn: (message) => (writes(log(), 'warn') ? log().warn(message) : consoleLogger.warn(message)),
    error: (message) => (writes(log(), 'error') ? log().error(message) : consoleLogger.error(message)),
  };
}
