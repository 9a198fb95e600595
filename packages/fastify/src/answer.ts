import type { Logger } from '@authlayer/core';
import { kindOf, type Answer } from '@authlayer/engine/internal';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The content type of the contract's error body, as Express's `res.json` writes it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Writes a refusal of the engine: its status, its headers, and the contract's JSON body
 * `{"error": code, "message": message}` (or the answer's own `body`), byte for byte what the Express adapter writes. One
 * microtask later, as there: Node marks a request without a body `complete` only after emitting
 * it, and an upload that was never read closes the connection rather than being drained.
 */
export function refuse(answer: Answer, request: FastifyRequest, reply: FastifyReply): void {
  queueMicrotask(() => {
    if (!request.raw.complete) reply.header('Connection', 'close');
    send(answer, reply);
  });
}

/** Writes an answer now. */
export function send(answer: Answer, reply: FastifyReply): void {
  reply.code(answer.status);
  for (const [name, value] of answer.headers) reply.header(name, value);
  reply.header('Content-Type', JSON_TYPE);
  reply.send(JSON.stringify(answer.body ?? { error: answer.code, message: answer.message }));
}

/** 500 `internal`: what Express's `errorHandler` answers when an `onDecision` listener threw. */
const INTERNAL: Answer = Object.freeze({ status: 500, headers: [], code: 'internal', message: 'internal error' });

/** An `onDecision` listener threw: one `error` line (never the error's message), and the 500. */
export function failed(logger: Logger, error: unknown, reply: FastifyReply): void {
  logger.error(`the onDecision listener failed (${kindOf(error)})`);
  send(INTERNAL, reply);
}
