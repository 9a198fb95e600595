import { redactUrl, type AuthConfig, type Logger } from '@authlayer/core';
import { secretHeaders } from '@authlayer/express';
import { pino, type DestinationStream, type Level, type Logger as Pino } from 'pino';
import { PinoPretty } from 'pino-pretty';

/** `LOG_LEVEL` values, as pino names them; `silent` turns logging off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** `LOG_FORMAT` values: one JSON object per line (the default), or `pretty` for people. */
export const LOG_FORMATS = ['json', 'pretty'] as const;

/** How the service logs: from `LOG_LEVEL` and `LOG_FORMAT`. */
export interface LogSettings {
  readonly level: Level | 'silent';
  readonly format: (typeof LOG_FORMATS)[number];
}

/** Where the lines go; default: stderr (stdout is for `--check`'s report). Tests pass `{ write }`. */
export type LogDestination = DestinationStream;

/** What is written in place of a secret header's value. */
export const REDACTED = '[redacted]';

/**
 * The service's pino logger: JSON lines with `level` (as a name), `time` and `msg`, at `level`,
 * on stderr; with `format: 'pretty'`, pino-pretty's lines instead. Authorization, Cookie and
 * the configured API key header are redacted wherever a request is logged (`req.headers`).
 */
export function createServiceLog(config: AuthConfig, settings: LogSettings, destination?: LogDestination): Pino {
  const paths = secretHeaders(config).map((name) => `req.headers[${JSON.stringify(name)}]`);
  const target =
    destination ??
    (settings.format === 'pretty'
      ? PinoPretty({ destination: 2, sync: true })
      : pino.destination({ fd: 2, sync: true }));
  return pino(
    {
      level: settings.level,
      redact: { paths, censor: REDACTED },
      formatters: { level: (label) => ({ level: label }) },
    },
    target,
  );
}

/** Request headers a request line shows as they are; every other header is left out. */
const SHOWN_HEADERS = new Set([
  'host',
  'user-agent',
  'accept',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-request-id',
  'origin',
  'referer',
]);

/**
 * The headers of a request line: the secret ones (`secretHeaders`) as `[redacted]`, a few plain
 * ones as they are (`Referer` through `redactUrl`: `?code=...` is a secret), no other. An allowlist, because a client may send a key in any header
 * (`X-Api-Token: <key>`), and a denylist would log it.
 */
export function headersToLog(
  headers: Readonly<Record<string, unknown>>,
  secret: readonly string[],
): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (secret.includes(name)) shown[name] = REDACTED;
    else if (name === 'referer' && typeof value === 'string') shown[name] = redactUrl(value);
    else if (SHOWN_HEADERS.has(name)) shown[name] = value;
  }
  return shown;
}

/**
 * A request URL for a log line: the path as it is; every query value, bare query entry and the
 * fragment replaced by `redacted` (RFC 6750 §2.3 lets clients send `?access_token=...`, and a key
 * can be anywhere), by core's `redactUrl`, the rule `--check` applies to `jwks_url`. An
 * absolute-form target (`http://user:pass@host/path`) goes through `redactUrl` whole.
 */
export function urlToLog(url: string): string {
  if (url === '*') return url;
  if (!url.startsWith('/')) return redactUrl(url);
  const mark = url.search(/[?#]/);
  if (mark === -1) return url;
  const base = 'http://request.invalid/';
  return `${url.slice(0, mark)}${redactUrl(`${base}${url.slice(mark)}`).slice(base.length)}`;
}

/** core's {@link Logger} (what handlers and the middleware write to) on top of pino. */
export function toLogger(log: Pino): Logger {
  return {
    info: (message) => log.info(message),
    warn: (message) => log.warn(message),
    error: (message) => log.error(message),
  };
}
