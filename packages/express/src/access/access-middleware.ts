import type { Generation } from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { apply, refuse, runFlow, scopeOf } from '../request.js';
import { runMcpGate } from '../mcp.js';

/**
 * `auth.access` for one request: the engine matches it against the table (as Express 5's router
 * matches routes, on the path Express gives) and says what the entries that match ask together.
 * `public` passes untouched; `deny` answers 403 before any credential is looked at. `method` is the
 * request's own, or a proxy's original request's (`accessAs`: the request's own `method` stays, as
 * Express's answers read it). A POST to `mcp.endpoint` that passes has its body read and its MCP
 * messages judged (see `runMcpGate`). Every request to `mcp.endpoint` or below it has its `Host`
 * and `Origin` checked first, before the table and any credential (the MCP transport's DNS-rebinding rule).
 */
export function runAccess(generation: Generation, method: string, req: Request, res: Response, next: NextFunction) {
  const scope = scopeOf(req, res);
  scope.judged = { method, path: req.path };
  const { mcp } = generation;
  // The MCP endpoint and every path below it: what a handler mounted there may be handed.
  const covered = mcp !== null && mcp.covers(req.path);
  let step: ReturnType<Generation['access']>;
  try {
    const foreign = covered ? mcp.refuseForeign(req, scope) : null;
    if (foreign !== null) return refuse(foreign, req, res);
    step = generation.access(method, req.path, req, scope);
  } catch (error) {
    // A decision listener threw on a refusal: a 500, as for every decision.
    return next(error);
  }
  if (step.kind === 'denied') return apply(step.outcome, scope, req, res, next);
  // A POST there: once the route's rule holds, its body's messages are judged too.
  const then = covered && method === 'POST' ? () => runMcpGate(mcp, req, res, next) : next;
  if (step.kind === 'public') return then();
  runFlow(step.flow, req, res, then as NextFunction);
}
