import { bearerError, type AuthContext } from '@authlayer/core';
import type { NextFunction, Request, Response } from 'express';
import { sendRefusal } from './error-handler.js';

/** A request that passed authentication: `req.auth` is set (see {@link authenticated}). */
export type AuthenticatedRequest<P = Request['params']> = Request<P> & { auth: AuthContext };

const NOT_AUTHENTICATED = bearerError('credentials_missing');

/**
 * Wraps a route handler so that TypeScript sees `req.auth` as set, without `!`: `req.auth` is
 * optional on every Express request, since only the routes after `auth` or `auth.access` have
 * it. At run time the wrapper checks it: a request without `req.auth` (the handler wired without
 * authentication before it) gets the 401 instead of running, so the type never lies.
 *
 * @example
 * app.get('/reports/:id', authenticated((req, res) => res.json({ id: req.params.id, by: req.auth.userId })));
 */
export function authenticated<P = Request['params']>(
  handler: (req: AuthenticatedRequest<P>, res: Response, next: NextFunction) => unknown,
): (req: Request<P>, res: Response, next: NextFunction) => unknown {
  return (req, res, next) => {
    if (req.auth === undefined) return sendRefusal(res, NOT_AUTHENTICATED);
    return handler(req as AuthenticatedRequest<P>, res, next);
  };
}
