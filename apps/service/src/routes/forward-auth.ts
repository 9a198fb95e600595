import type { AuthContext, IdentityField } from '@authlayer/core';
import { httpError, type AuthMiddleware } from '@authlayer/express';
import express, { type Request, type Router } from 'express';

const METHOD = /^[A-Za-z]{1,20}$/;
const MAX_URI = 8192;

/** The request a proxy asks about: its method and URI (origin-form: path and query). */
interface Original {
  readonly method: string;
  readonly uri: string;
}

/**
 * `/forward-auth` (any method), for a proxy in front of another application: Traefik's ForwardAuth
 * (`X-Forwarded-Method`, `X-Forwarded-Uri`) or nginx's `auth_request` (`X-Original-Method`,
 * `X-Original-URI`). The `access` table is applied to the original method and URI, with the
 * request's own credentials, exactly as `auth.access` applies it to a route of this service: a 200
 * with the identity headers, or the route's own 401, 403 or 429. The body is never read. Without an
 * original URI → 400 `invalid_request`.
 */
export function forwardAuthRouter(auth: AuthMiddleware): Router {
  const router = express.Router();
  router.all('/forward-auth', (req, res, next) => {
    // Per request: a reload may name other identity headers.
    const identity = Object.entries(auth.config.forwardAuth.identityHeaders);
    const original = originalOf(req);
    if (original === null) {
      return next(
        httpError(400, 'invalid_request', 'the proxy sent no original URI (X-Forwarded-Uri or X-Original-URI)'),
      );
    }
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

function originalOf(req: Request): Original | null {
  const uri = single(req.headers['x-forwarded-uri']) ?? single(req.headers['x-original-uri']);
  if (uri === undefined || !uri.startsWith('/') || uri.length > MAX_URI) return null;
  const method = single(req.headers['x-forwarded-method']) ?? single(req.headers['x-original-method']) ?? req.method;
  if (!METHOD.test(method)) return null;
  return { method: method.toUpperCase(), uri };
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
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
