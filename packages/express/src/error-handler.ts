import { isAuthError, type Logger } from '@authlayer/core';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { consoleLogger } from './logger.js';

/** The codes of the contract's error bodies. */
export type ErrorCode =
  | 'unauthorized'
  | 'invalid_request'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'internal';

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
  res.status(status).json({ error: code, message });
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
 * The JSON error handler: AuthError → 401 with `WWW-Authenticate`; body-parser errors → 400,
 * 413 or 415; an {@link HttpError} → its own status; anything else → 500 `internal` with a
 * generic message (never the error's own message, which may hold anything).
 */
export function errorHandler(options: { logger?: Logger } = {}): ErrorRequestHandler {
  const logger = options.logger ?? consoleLogger;
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if (isAuthError(error)) {
      res.setHeader('WWW-Authenticate', error.challenge);
      return sendError(res, error.status, error.code as ErrorCode, error.message);
    }
    const bodyError = BODY_ERRORS[(error as { type?: string } | null)?.type ?? ''];
    if (bodyError !== undefined) return sendError(res, ...bodyError);
    if (isHttpError(error)) return sendError(res, error.status, error.code, error.message);
    const status = clientErrorStatus(error);
    if (status !== undefined) return sendError(res, status, ...(CLIENT_ERRORS[status] ?? CLIENT_ERRORS[400]!));
    logger.error(`internal error (${error instanceof Error ? error.name : typeof error}) on ${req.method} ${req.path}`);
    return sendError(res, 500, 'internal', 'internal error');
  };
}

/** Answers every request it sees with 404 `not_found`; mount it after the routes. */
export function notFound(): RequestHandler {
  return (_req, res) => sendError(res, 404, 'not_found', 'no such resource');
}

const CLIENT_ERRORS: Readonly<Record<number, [ErrorCode, string]>> = {
  400: ['invalid_request', 'the request is not valid'],
  404: ['not_found', 'no such resource'],
  413: ['payload_too_large', 'the request body is too large'],
  415: ['unsupported_media_type', 'the content type is not supported'],
};

/** The status of an http-errors style client error (Express's own, such as a bad URL encoding). */
function clientErrorStatus(error: unknown): number | undefined {
  const { status, expose } = (error ?? {}) as { status?: unknown; expose?: unknown };
  if (expose !== true || typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  return status in CLIENT_ERRORS ? status : 400;
}

function isHttpError(error: unknown): error is HttpError {
  if (!(error instanceof Error)) return false;
  const candidate = error as Partial<HttpError>;
  return (
    candidate.expose === true &&
    typeof candidate.code === 'string' &&
    typeof candidate.status === 'number' &&
    candidate.status >= 400 &&
    candidate.status < 500
  );
}
