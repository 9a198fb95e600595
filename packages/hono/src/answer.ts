import type { Logger } from '@authlayer/core';
import { INTERNAL_ANSWER, answerJson } from '@authlayer/engine/internal';
import { kindOf, type Answer } from './request.js';

/** The content type of the contract's error body, as Express's `res.json` writes it. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Headers to add, in the order they are set. */
export type HeaderList = readonly (readonly [string, string])[];

/**
 * An answer of the engine as a web `Response`: `headers` first (rate-limit headers of the
 * decision), then the answer's own (`WWW-Authenticate`, `Retry-After`), its status, and the
 * contract's JSON body `{"error": code, "message": message}` (or the answer's own `body`), the
 * bytes the Express and Fastify adapters write.
 */
export function responseOf(answer: Answer, headers: HeaderList = []): Response {
  const out = new Headers();
  for (const [name, value] of headers) out.set(name, value);
  for (const [name, value] of answer.headers) out.set(name, value);
  out.set('Content-Type', JSON_TYPE);
  return new Response(answerJson(answer), {
    status: answer.status,
    headers: out,
  });
}

/** An `onDecision` listener threw: one `error` line (never the error's message), and the 500. */
export function failed(logger: Logger, error: unknown): Response {
  logger.error(`the onDecision listener failed (${kindOf(error)})`);
  return responseOf(INTERNAL_ANSWER);
}
