import { RequestScope } from '@authlayer/engine/internal';
import type { Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { requestIdOf } from './request-id.js';

// One RequestScope per request, kept on the request under a symbol: the access plan, why a request
// went on anonymously, the held decision.

const SCOPE = Symbol('authlayer.scope');

type Scoped = IncomingMessage & { [SCOPE]?: RequestScope };

/** The request's scope, made on first use (one per request, whichever middleware comes first). */
export function scopeOf(req: Request, res: Response): RequestScope {
  const scoped = req as Scoped;
  return (scoped[SCOPE] ??= new RequestScope(() => requestIdOf(res)));
}

/** The request's scope when an authlayer middleware ran before, else undefined. */
export function existingScopeOf(req: IncomingMessage): RequestScope | undefined {
  return (req as Scoped)[SCOPE];
}

/** Keeps `scope` with a request that is no Express request (an upgrade), for `auth.hold`. */
export function holdScope(req: IncomingMessage, scope: RequestScope): void {
  (req as Scoped)[SCOPE] = scope;
}
