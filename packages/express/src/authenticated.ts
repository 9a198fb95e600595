import type { AuthContext } from '@authlayer/core';
import { NOT_AUTHENTICATED_ANSWER } from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { sendAnswer } from './answer.js';

/** A request that passed authentication: `req.auth` is set (see {@link authenticated}). */
export type AuthenticatedRequest<P = Request['params']> = Request<P> & { auth: AuthContext };

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
    if (req.auth === undefined) return sendAnswer(res, NOT_AUTHENTICATED_ANSWER);
    return handler(req as AuthenticatedRequest<P>, res, next);
  };
}
