import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { ServerResponse } from 'node:http';

/** The header that carries a request's id, in both directions. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

// What we echo: short and plain, so that a hostile id can neither break a log line nor grow it.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes the client's `X-Request-Id` when it is 1 to 128 characters of `A-Z a-z 0-9 . _ : -`,
 * and otherwise makes one (a random UUID); the answer always carries it. Mount it first.
 *
 * @example
 * app.use(requestId());
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    res.setHeader(REQUEST_ID_HEADER, typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID());
    next();
  };
}

/** The id that {@link requestId} gave this request's answer, or `null` when it is not mounted. */
export function requestIdOf(res: Pick<ServerResponse, 'getHeader'>): string | null {
  const id = res.getHeader(REQUEST_ID_HEADER);
  return typeof id === 'string' ? id : null;
}
