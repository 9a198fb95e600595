import type { AuthContext } from '@authlayer/core';
import {
  decide,
  reportWhenAnswered,
  RequestScope,
  type Answer,
  type Flow,
  type Outcome,
} from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { sendError } from './error-handler.js';
import { sendContinueIfAwaited } from './expect-continue.js';
import { requestIdOf } from './request-id.js';

// The Express glue around the engine: a request's scope lives on the request under a symbol, an
// outcome becomes `req.auth` and next(), or the answer written on `res`.

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

/**
 * Runs a flow of the engine for one Express request: in the same turn when the engine answers
 * synchronously (no rate limit, a handler with `authenticateNow`). An `onDecision` listener that
 * throws becomes a 500 through `next(error)`, never a crash.
 */
export function runFlow(flow: Flow, req: Request, res: Response, next: NextFunction): void {
  const scope = scopeOf(req, res);
  let outcome: ReturnType<typeof decide>;
  try {
    outcome = decide(flow, req, scope);
  } catch (error) {
    return next(error);
  }
  if (outcome instanceof Promise) {
    outcome.then((settled) => apply(settled, scope, req, res, next), next);
    return;
  }
  apply(outcome as Outcome, scope, req, res, next);
}

/** An outcome of the engine: go on with `req.auth`, or answer the refusal. */
export function apply(outcome: Outcome, scope: RequestScope, req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of outcome.headers) res.setHeader(name, value);
  if (!outcome.pass) return refuse(outcome.answer, req, res);
  if (outcome.context === undefined) return next();
  (req as Request & { auth: AuthContext }).auth = outcome.context;
  if (scope.holding) reportWhenAnswered(scope, res);
  // Expect: 100-continue (with continueAfterAuthentication): only now is the client told to upload.
  sendContinueIfAwaited(req, res);
  next();
}

/**
 * Writes a refusal, one microtask later: Node's parser marks a request without a body `complete`
 * only after it emitted it, and an upload that was never read closes the connection rather than
 * being drained.
 */
export function refuse(answer: Answer, req: Request, res: Response): void {
  queueMicrotask(() => {
    if (!req.complete) res.setHeader('Connection', 'close');
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    if (answer.body === undefined) sendError(res, answer.status, answer.code, answer.message);
    else res.status(answer.status).json(answer.body);
  });
}
