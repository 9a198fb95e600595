import type { AuthHandler, AuthRequest } from '@authlayer/core';

/**
 * A CORS preflight (Fetch standard): `OPTIONS` with `Origin` and `Access-Control-Request-Method`.
 * Browsers never attach credentials to it, so authentication lets it pass to the app's CORS handler.
 */
export function isPreflight(req: Pick<AuthRequest, 'method' | 'headers'>): boolean {
  return (
    req.method === 'OPTIONS' &&
    typeof req.headers.origin === 'string' &&
    typeof req.headers['access-control-request-method'] === 'string'
  );
}

/**
 * The headers that carry a credential for a handler, lower case: `authorization`, and those the
 * handler names (the API key header). `auth.optional` lets a request through anonymously only
 * when none of them is present, so a wrong credential is never downgraded to anonymous.
 */
export function credentialHeaders(handler: Pick<AuthHandler, 'credentialHeaders'>): readonly string[] {
  return [...new Set(['authorization', ...(handler.credentialHeaders ?? [])])];
}

/** True when the request carries any of `names` (own header properties only, any value). */
export function carriesCredentials(req: Pick<AuthRequest, 'headers'>, names: readonly string[]): boolean {
  return names.some((name) => Object.hasOwn(req.headers, name) && req.headers[name] !== undefined);
}
