import { isAuthError, isForbiddenError, type AuthError, type ForbiddenError, type Logger } from '@authlayer/core';
import { consoleLogger } from '@authlayer/engine';
import { INTERNAL_ANSWER, kindOf, refusalAnswer } from '@authlayer/engine/internal';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { allowedMethods } from './allowed-methods.js';
import { sendAnswer, writeErrorBody } from './answer.js';

/** The codes of the contract's error bodies; no other code is ever sent. */
export const ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'invalid_request',
  'unsupported_media_type',
  'payload_too_large',
  'not_found',
  'rate_limited',
  'internal',
] as const;

/**
 * The `error` of a contract error body; no other code is ever sent.
 * @useDeclaredType
 */
export type ErrorCode = (typeof ERROR_CODES)[number];

const isErrorCode = (code: unknown): code is ErrorCode => (ERROR_CODES as readonly unknown[]).includes(code);

/** An error a route throws on purpose; `errorHandler` renders its status, code and message. */
export interface HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly expose: true;
}

/**
 * Makes an {@link HttpError}. The message is shown to the client, so it must hold no secret.
 *
 * @example
 * throw httpError(400, 'invalid_request', '"query" must be a string');
 */
export function httpError(status: number, code: ErrorCode, message: string): HttpError {
  return Object.assign(new Error(message), { status, code, expose: true as const });
}

/** Writes the contract's error body `{"error": code, "message": text}`. */
export function sendError(res: Response, status: number, code: ErrorCode, message: string): void {
  writeErrorBody(res, status, code, message);
}

/** True for a 401 or 403 refusal, also one made by another copy of core. */
export function isRefusal(error: unknown): error is AuthError | ForbiddenError {
  return isAuthError(error) || isForbiddenError(error);
}

// body-parser's error types (its README, "Errors") and what the contract answers for each.
const BODY_ERRORS: Readonly<Record<string, [number, ErrorCode, string]>> = {
  'entity.too.large': [413, 'payload_too_large', 'the request body is too large'],
  'entity.parse.failed': [400, 'invalid_request', 'the request body is not valid JSON'],
  'entity.verify.failed': [400, 'invalid_request', 'the request body was refused'],
  'request.aborted': [400, 'invalid_request', 'the request was aborted'],
  'request.size.invalid': [400, 'invalid_request', 'the request body does not match its Content-Length'],
  'encoding.unsupported': [415, 'unsupported_media_type', 'the content encoding is not supported'],
  'charset.unsupported': [415, 'unsupported_media_type', 'the charset is not supported'],
};

/**
 * The JSON error handler: AuthError → 401 and ForbiddenError → 403, with `WWW-Authenticate`; body-parser errors → 400,
 * 413 or 415; an {@link HttpError} → its own status; anything else → 500 `internal` with a
 * generic message (never the error's own message, which may hold anything).
 */
export function errorHandler(options: { logger?: Logger } = {}): ErrorRequestHandler {
  const logger = options.logger ?? consoleLogger;
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if (isRefusal(error)) return sendAnswer(res, refusalAnswer(error));
    const known = BODY_ERRORS[(error as { type?: string } | null)?.type ?? ''] ?? clientError(error);
    if (known !== undefined) return sendError(res, ...known);
    logger.error(`internal error (${kindOf(error)}) on ${req.method} ${req.path}`);
    return sendAnswer(res, INTERNAL_ANSWER);
  };
}

/**
 * Answers every request it sees with 404 `not_found`; mount it after the routes. An `OPTIONS` to
 * a path that has routes gets Express's own answer instead (200, `Allow` and the same list as
 * text), which a handler at the end of the app otherwise hides: Express gives it only once every
 * layer has passed the request on.
 */
export function notFound(): RequestHandler {
  return (req, res) => {
    const allow = req.method === 'OPTIONS' ? allowedMethods(req) : [];
    if (allow.length === 0) return sendError(res, 404, 'not_found', 'no such resource');
    // As the router's sendOptionsResponse writes it.
    const body = allow.join(', ');
    res.setHeader('Allow', body);
    res.setHeader('Content-Type', 'text/plain');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).end(body);
  };
}

const CLIENT_ERRORS: Readonly<Record<number, [ErrorCode, string]>> = {
  400: ['invalid_request', 'the request is not valid'],
  404: ['not_found', 'no such resource'],
  413: ['payload_too_large', 'the request body is too large'],
  415: ['unsupported_media_type', 'the content type is not supported'],
};

/**
 * An exposed 4xx in the http-errors style: an {@link HttpError} with its own code and message,
 * or one of Express's or a library's own (a bad URL encoding, ...) with the fixed code and message of its status.
 */
function clientError(error: unknown): [number, ErrorCode, string] | undefined {
  const { status, expose, code } = (error ?? {}) as { status?: unknown; expose?: unknown; code?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  // Only our own codes pass through: a library's (zlib's Z_DATA_ERROR on a broken gzip body,
  // ERR__ERROR_FORMAT_PADDING_2 from brotli) gets the fixed code and message of its status.
  if (error instanceof Error && isErrorCode(code)) return [status, code, error.message];
  const known = status in CLIENT_ERRORS ? status : 400;
  return [known, ...(CLIENT_ERRORS[known] as [ErrorCode, string])];
}
