import type { AuthContext } from '@authlayer/core';
import { unauthenticated } from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { sendAnswer } from './answer.js';
import { routeOf } from './guards.js';
import { existingScopeOf } from './scope.js';

/** A request that passed authentication: `req.auth` is set (see {@link authenticated}). */
export type AuthenticatedRequest<P = Request['params']> = Request<P> & { auth: AuthContext };

/**
 * Wraps a route handler so that TypeScript sees `req.auth` as set, without `!`: `req.auth` is
 * optional on every Express request, since only the routes after `auth` or `auth.access` have
 * it. At run time the wrapper checks it: a request without `req.auth` (the handler wired without
 * authentication before it) gets the 401 instead of running, so the type never lies; that 401 is
 * the request's decision (`onDecision`) when `auth.access` saw the request (a `public` route).
 *
 * @example
 * app.get('/reports/:id', authenticated((req, res) => res.json({ id: req.params.id, by: req.auth.userId })));
 */
export function authenticated<P = Request['params']>(
  handler: (req: AuthenticatedRequest<P>, res: Response, next: NextFunction) => unknown,
): (req: Request<P>, res: Response, next: NextFunction) => unknown {
  return (req, res, next) => {
    if (req.auth === undefined) {
      let answer: ReturnType<typeof unauthenticated>;
      try {
        answer = unauthenticated(existingScopeOf(req), routeOf, req as Request);
      } catch (listenerError) {
        return next(listenerError);
      }
      return sendAnswer(res, answer);
    }
    return handler(req as AuthenticatedRequest<P>, res, next);
  };
}
