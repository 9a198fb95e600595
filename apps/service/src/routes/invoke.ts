import { httpError } from '@authlayer/express';
import express, { type RequestHandler, type Router } from 'express';

const JSON_TYPES = ['application/json', 'application/*+json'];
/** 1 MiB, the contract's limit on a request body. */
export const BODY_LIMIT = 1024 * 1024;

/**
 * `POST /invoke`: the JSON body, read only once `auth.access` (mounted before every route) has
 * authenticated and authorized the request as the `access` table says.
 */
export function invokeRouter(): Router {
  const router = express.Router();
  router.post('/invoke', requireJsonBody, express.json({ limit: BODY_LIMIT, type: JSON_TYPES }), (req, res) => {
    const body: unknown = req.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw httpError(400, 'invalid_request', 'the request body must be a JSON object');
    }
    const { query } = body as { query?: unknown };
    if (typeof query !== 'string') throw httpError(400, 'invalid_request', '"query" must be a string');
    res.json({ query, auth: req.auth });
  });
  return router;
}

const requireJsonBody: RequestHandler = (req, _res, next) => {
  // req.is() is null when the request has no body at all; an empty one without a type is no body either.
  const type = req.is(JSON_TYPES);
  const empty = req.headers['content-length'] === '0' && req.headers['content-type'] === undefined;
  if (type === null || empty) return next(httpError(400, 'invalid_request', 'the request body must be a JSON object'));
  if (type === false)
    return next(httpError(415, 'unsupported_media_type', 'the content type must be application/json'));
  next();
};
