import type { AuthContext, Logger } from '@authlayer/core';
import {
  answerJson,
  INTERNAL_ANSWER,
  kindOf,
  reportWhenAnswered,
  type Answer,
  type Port,
} from '@authlayer/engine/internal';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

// The one place an outcome of the engine becomes Fastify's: `request.auth` and on, or the answer
// written on the reply, byte for byte what the Express adapter writes.

/** The content type of the contract's error body, as Express's `res.json` writes it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Fastify's port to the engine. */
export type FastifyPort = Port<FastifyRequest, FastifyReply, HookHandlerDoneFunction>;

/** Fastify's port to the engine: made once per registration (its `fail` logs to `logger`). */
export function createPort(logger: Logger): FastifyPort {
  return {
    pass(request, reply, done, context, headers, scope) {
      for (const [name, value] of headers) reply.header(name, value);
      if (context !== undefined) {
        request.auth = context;
        // The MCP SDK's transport reads `auth` of the Node request (`reply.raw` handlers): no glue.
        (request.raw as { auth?: AuthContext }).auth = context;
      }
      // The held `allowed` decision is reported when the answer starts (a guard may still refuse
      // before), or when the request ends without one; no hook on every request for it.
      if (scope.holding) reportWhenAnswered(scope, reply.raw);
      done();
    },
    refuse(request, reply, _done, answer, headers) {
      for (const [name, value] of headers) reply.header(name, value);
      // Read now, a microtask after the decision (see `Port.refuseLater`).
      if (!request.raw.complete) reply.header('Connection', 'close');
      send(answer, reply);
    },
    fail: (_request, reply, _done, error) => failed(logger, error, reply),
    refuseLater: true,
  };
}

/** Writes an answer now: its status, its headers and its JSON body. */
export function send(answer: Answer, reply: FastifyReply): void {
  reply.code(answer.status);
  for (const [name, value] of answer.headers) reply.header(name, value);
  reply.header('Content-Type', JSON_TYPE);
  reply.send(answerJson(answer));
}

/** An `onDecision` listener threw: one `error` line (never the error's message), and the 500. */
export function failed(logger: Logger, error: unknown, reply: FastifyReply): void {
  logger.error(`the onDecision listener failed (${kindOf(error)})`);
  send(INTERNAL_ANSWER, reply);
}
