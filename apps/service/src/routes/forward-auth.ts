import type { AuthContext, IdentityField } from '@authlayer/core';
import { httpError, type AuthMiddleware } from '@authlayer/express';
import express, { type Router } from 'express';
import { readOriginalRequest } from './original-request.js';

/**
 * `/forward-auth` (any method), for a proxy in front of another application: Traefik's ForwardAuth
 * (`X-Forwarded-Method`, `X-Forwarded-Uri`) or nginx's `auth_request` (`X-Original-Method`,
 * `X-Original-URI`), one style only (`forward_auth.proxy`). The `access` table is applied to the
 * original method and URI, with the request's own credentials, exactly as `auth.access` applies it
 * to a route of this service: a 200 with the identity headers, or the route's own 401, 403 or 429.
 * The body is never read. Without an original URI, with both header styles, or with a URI that is
 * not canonical → 400 `invalid_request`, never a decision.
 */
export function forwardAuthRouter(auth: AuthMiddleware): Router {
  const router = express.Router();
  router.all('/forward-auth', (req, res, next) => {
    // Per request: a reload may name other identity headers.
    const identity = Object.entries(auth.config.forwardAuth.identityHeaders);
    const original = readOriginalRequest(req.headers, req.method, auth.config.forwardAuth.proxy);
    if (typeof original === 'string') return next(httpError(400, 'invalid_request', original));
    const { url } = req;
    const restore = () => {
      req.url = url;
    };
    // A refusal is answered by the table itself: the request line of the log still names /forward-auth.
    res.prependOnceListener('finish', restore);
    // The table sees the original URL (as Express rewrites it for a mounted router) and method;
    // req.method stays, since Express's answers read it (a HEAD gets no body).
    req.url = original.uri;
    auth.accessAs(original.method, req, res, (error?: unknown) => {
      restore();
      if (error !== undefined) return next(error);
      for (const [name, field] of identity) res.setHeader(name, headerValue(req.auth, field));
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).end();
    });
  });
  return router;
}

/**
 * A field of the caller's context as a header value: lists joined with `,`, absent values empty.
 * `%` and characters outside printable ASCII are percent-encoded (UTF-8), so any claim fits a
 * header and `decodeURIComponent` gives it back.
 */
export function headerValue(context: AuthContext | undefined, field: IdentityField): string {
  const value = context?.[field] ?? null;
  if (value === null) return '';
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return text.replace(/[^\x20-\x24\x26-\x7e]/gu, (char) => encodeURIComponent(char));
}
