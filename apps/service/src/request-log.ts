import { requestIdOf } from '@authlayer/express';
import { randomUUID } from 'node:crypto';
import type { Logger as Pino } from 'pino';
import { pinoHttp } from 'pino-http';
import { headersToLog, urlToLog } from './logging.js';

/** One line per request (pino-http), under the request's id, with only {@link headersToLog}. */
export function requestLog(log: Pino, secret: () => readonly string[]) {
  return pinoHttp({
    logger: log,
    genReqId: (_req, res) => requestIdOf(res) ?? randomUUID(),
    // A refusal (4xx) is routine, and has its own audit line; only a 5xx is an error, unless its
    // route says it is an answer (`res.locals.routine`: /readyz's 503, which a probe polls).
    customLogLevel: (_req, res, error) =>
      error !== undefined || (res.statusCode >= 500 && !isRoutine(res)) ? 'error' : 'info',
    customErrorMessage: (_req, res) => (isRoutine(res) ? 'request completed' : 'request errored'),
    customErrorObject: (_req, res, _error, value: Record<string, unknown>) => {
      if (!isRoutine(res)) return value;
      const { err: _err, ...answer } = value;
      return answer;
    },
    serializers: {
      // The parsed query would repeat what urlToLog hides; params are empty this early.
      req: ({
        query: _query,
        params: _params,
        ...req
      }: {
        url: string;
        headers: Record<string, unknown>;
        query?: unknown;
        params?: unknown;
      }) => ({
        ...req,
        url: urlToLog(req.url),
        headers: headersToLog(req.headers, secret()),
      }),
      // pino-http makes an Error for a 5xx; its kind is enough (no message, no stack in a log line).
      err: (error: { type?: string }) => ({ type: error.type }),
    },
  });
}

/** Set by a route whose 5xx is an expected answer, not a failure of the service. */
function isRoutine(res: object): boolean {
  return (res as { locals?: { routine?: unknown } }).locals?.routine === true;
}
