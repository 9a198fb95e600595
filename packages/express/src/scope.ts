import { RequestScope } from '@authlayer/engine/internal';
import type { Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { requestIdOf } from './request-id.js';

// One RequestScope per request: the access plan, why a request went on anonymously, the held
// decision. It lives in `res.locals` (Express makes one per request, a dictionary without a
// prototype), not on `req`: Express 5 changes each request's prototype, so every property added
// to `req` after that costs a new hidden class per request, and `req.auth` is the one we add.
// A request that never went through Express (an upgrade) keeps it under the same symbol on itself.

const SCOPE = Symbol('authlayer.scope');

type Slot = { [SCOPE]?: RequestScope };
type Locals = { locals?: Slot };

/** The request's scope, made on first use (one per request, whichever middleware comes first). */
export function scopeOf(req: Request, res: Response): RequestScope {
  const slot = slotOf(req, res as Locals);
  return (slot[SCOPE] ??= new RequestScope(() => requestIdOf(res)));
}

/** The request's scope when an authlayer middleware ran before, else undefined. */
export function existingScopeOf(req: IncomingMessage): RequestScope | undefined {
  return slotOf(req, (req as { res?: Locals }).res)[SCOPE];
}

/** Keeps `scope` with a request that is no Express request (an upgrade), for `auth.hold`. */
export function holdScope(req: IncomingMessage, scope: RequestScope): void {
  (req as Slot)[SCOPE] = scope;
}

/** Where a request's scope lives: its answer's `res.locals` under Express, else the request itself. */
function slotOf(req: IncomingMessage, res: Locals | undefined): Slot {
  return res?.locals ?? (req as Slot);
}
