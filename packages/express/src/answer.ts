import { answerJson, reportWhenAnswered, type Answer, type HeaderList, type Port } from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { sendContinueIfAwaited } from './expect-continue.js';

// The one place an outcome of the engine becomes Express's: `req.auth` and next(), or the answer
// written on `res` (on the socket, for an upgrade).

/** Express's port to the engine: one constant object, the same for every request. */
export const PORT: Port<Request, Response, NextFunction> = {
  pass(req, res, next, context, headers, scope) {
    for (const [name, value] of headers) res.setHeader(name, value);
    if (context === undefined) return next();
    req.auth = context;
    if (scope.holding) reportWhenAnswered(scope, res);
    // Expect: 100-continue (with continueAfterAuthentication): only now is the client told to upload.
    sendContinueIfAwaited(req, res);
    next();
  },
  refuse(req, res, _next, answer, headers) {
    for (const [name, value] of headers) res.setHeader(name, value);
    // Read now, a microtask after the decision (see `Port.refuseLater`).
    if (!req.complete) res.setHeader('Connection', 'close');
    sendAnswer(res, answer);
  },
  // The app's error handler answers it: 500 `internal` with `errorHandler()`.
  fail: (_req, _res, next, error) => next(error),
  refuseLater: true,
};

/** Writes an answer now: its headers, its status and its JSON body. */
export function sendAnswer(res: Response, answer: Answer): void {
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  if (answer.body === undefined) writeErrorBody(res, answer.status, answer.code, answer.message);
  else res.status(answer.status).json(answer.body);
}

/** Writes the contract's error body `{"error": code, "message": text}` with `status`. */
export function writeErrorBody(res: Response, status: number, code: string, message: string): void {
  // A handler before us may have set headers of the body it meant to send (serve-static sets
  // Content-Type: text/css, then fails a bad Range with 416): they must not describe this JSON.
  for (const name of STALE_HEADERS) res.removeHeader(name);
  res.status(status).json({ error: code, message });
}

const STALE_HEADERS = [
  'Content-Type',
  'Content-Encoding',
  'Content-Language',
  'Content-Range',
  'Content-Disposition',
  'Accept-Ranges',
  'ETag',
  'Last-Modified',
];

/**
 * Writes an answer on an upgrade's socket as the HTTP answer Express sends for it (status line,
 * `headers`, the answer's own headers, the same JSON body) and ends the socket.
 */
export function writeSocketAnswer(socket: Duplex, answer: Answer, headers: HeaderList): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = answerJson(answer);
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  for (const [name, value] of [...headers, ...answer.headers]) lines.push(`${name}: ${value}`);
  lines.push(
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  );
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
