import {
  ABORTED,
  BODY_TOO_LARGE,
  NOT_JSON,
  filterListAnswer,
  readBoundedBody,
  refuseThrough,
  type McpGate,
} from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { PORT } from './answer.js';
import { scopeOf } from './scope.js';

/**
 * A POST to `mcp.endpoint` that the route's rule let through: its body is read (at most
 * `mcp.max_body_bytes`, else 413), parsed as JSON (else 400 with JSON-RPC's parse error), left on
 * `req.body` for the SDK's `transport.handleRequest(req, res, req.body)`, and judged by the engine
 * (`McpGate.judge`). A body a parser before `auth.access` already read is judged as it is.
 */
export function runMcpGate(gate: McpGate, req: Request, res: Response, next: NextFunction): void {
  if (req.body !== undefined) return judge(gate, req.body, req, res, next);
  const declared = Number(req.headers['content-length']);
  if (declared > gate.maxBodyBytes) return refuseThrough(PORT, req, res, next, BODY_TOO_LARGE);
  void readBoundedBody(req, gate.maxBodyBytes).then((body) => {
    // The client went away mid-body: nobody is left to answer.
    if (body === ABORTED) return;
    if (body === null) return refuseThrough(PORT, req, res, next, BODY_TOO_LARGE);
    let value: unknown;
    try {
      value = JSON.parse(body.toString('utf8'));
    } catch {
      return refuseThrough(PORT, req, res, next, NOT_JSON);
    }
    req.body = value;
    judge(gate, value, req, res, next);
  });
}

function judge(gate: McpGate, body: unknown, req: Request, res: Response, next: NextFunction): void {
  let verdict: ReturnType<McpGate['judge']>;
  let rewrite: ReturnType<McpGate['listRewrite']> = null;
  try {
    verdict = gate.judge(body, req, req.auth, scopeOf(req, res));
    if (verdict.pass) rewrite = gate.listRewrite(body, req, req.auth, scopeOf(req, res));
  } catch (error) {
    // A decision listener threw: a 500, as for every decision.
    return next(error);
  }
  // mcp.filter_lists: the list answer the server writes holds only what the caller may call.
  if (rewrite !== null) filterListAnswer(res, rewrite);
  if (verdict.pass) return next();
  refuseThrough(PORT, req, res, next, verdict.answer);
}
