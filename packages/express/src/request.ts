import { refuseThrough, runAccess, runFlow, type Flow, type Generation } from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { PORT } from './answer.js';
import { runMcpGate } from './mcp.js';
import { scopeOf } from './scope.js';

// The first step of a request: the engine runs its order (see the engine's `request/run.ts`) and
// answers through Express's port (`answer.ts`); nothing is made per request but its scope.

/**
 * The middleware of one flow (`auth`: a credential required; `auth.optional`), on the generation
 * serving when the request arrives: the request keeps it to the end.
 */
export function createOnRequest(
  current: () => Generation,
  pick: (generation: Generation) => Flow,
): (req: Request, res: Response, next: NextFunction) => void {
  return function authlayer(req, res, next) {
    runFlow(pick(current()), req, scopeOf(req, res), req, res, next, PORT);
  };
}

/**
 * `auth.access` for one request: the engine matches it against the table (as Express 5's router
 * matches routes, on the path Express gives) and says what the entries that match ask together.
 * `public` passes untouched; `deny` answers 403 before any credential is looked at. `method` is the
 * request's own, or a proxy's original request's (`accessAs`: the request's own `method` stays, as
 * Express's answers read it). A POST to `mcp.endpoint` that passes has its body read and its MCP
 * messages judged (see `runMcpGate`). Every request to `mcp.endpoint` or below it has its `Host`
 * and `Origin` checked first, before the table and any credential (the MCP transport's DNS-rebinding rule).
 */
export function runAccessOf(generation: Generation, method: string, req: Request, res: Response, next: NextFunction) {
  const scope = scopeOf(req, res);
  const path = req.path;
  scope.judged = { method, path };
  const { mcp } = generation;
  // The MCP endpoint and every path below it: what a handler mounted there may be handed.
  const covered = mcp !== null && mcp.covers(path);
  if (covered) {
    let foreign: ReturnType<typeof mcp.refuseForeign>;
    try {
      foreign = mcp.refuseForeign(req, scope);
    } catch (error) {
      // A decision listener threw on a refusal: a 500, as for every decision.
      return next(error);
    }
    if (foreign !== null) return refuseThrough(PORT, req, res, next, foreign);
  }
  // A POST there: once the route's rule holds, its body's messages are judged too.
  const then = covered && method === 'POST' ? () => runMcpGate(mcp, req, res, next) : next;
  runAccess(generation, method, path, req, scope, req, res, then as NextFunction, PORT);
}
