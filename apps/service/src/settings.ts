import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LOG_FORMATS, LOG_LEVELS, type LogSettings } from './logging.js';

/** What the command line and the environment ask for. */
export interface Settings {
  readonly configPath: string;
  readonly port: number;
  readonly host: string;
  /** `--check`: validate the config and the key material, print the resolved settings, exit. */
  readonly check: boolean;
  /** `LOG_LEVEL` (default `info`) and `LOG_FORMAT` (default `json`; `pretty` for people). */
  readonly log: LogSettings;
  /** `METRICS=1` serves `GET /metrics`; `null` leaves it to the config's `metrics`. */
  readonly metrics: boolean | null;
  /** `WORKERS`: worker processes on one port (node:cluster). Default 1: no cluster. */
  readonly workers: number;
}

const DEFAULT_CONFIG = fileURLToPath(new URL('../service.yaml', import.meta.url));

/** A bad flag or variable: main.ts prints it on one line and exits 1. */
export class UsageError extends Error {}

/**
 * Reads argv and the environment.
 *
 * @throws UsageError naming the flag or variable that is wrong
 */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv): Settings {
  let values: { config?: string | undefined; check?: boolean | undefined };
  try {
    ({ values } = parseArgs({ args: argv, options: { config: { type: 'string' }, check: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (usage: main.js [--config PATH] [--check])`);
  }
  const port = env.PORT === undefined || env.PORT === '' ? 8080 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('PORT must be an integer from 0 to 65535');
  return {
    configPath: values.config ?? (env.SERVICE_CONFIG || DEFAULT_CONFIG),
    port,
    host: env.HOST || '127.0.0.1',
    check: values.check === true,
    log: { level: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'), format: oneOf('LOG_FORMAT', env.LOG_FORMAT, LOG_FORMATS, 'json') },
    metrics: readMetrics(env.METRICS),
    workers: readWorkers(env.WORKERS),
  };
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${name} must be one of: ${allowed.join(', ')}`);
}

function readMetrics(value: string | undefined): boolean | null {
  if (value === undefined || value === '') return null;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new UsageError('METRICS must be 1 or 0 (true or false)');
}

function readWorkers(value: string | undefined): number {
  if (value === undefined || value === '') return 1;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1 || workers > 256) throw new UsageError('WORKERS must be an integer from 1 to 256');
  return workers;
}
