import type { AuthRequest } from '@authlayer/core';

// RFC 3986 §2.3: percent-encoded unreserved characters mean the characters themselves.
const UNRESERVED_ESCAPE = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[Dd]|2[Ee]|5[Ff]|7[Ee])/g;
const ANY_ESCAPE = /%[0-9a-f]{2}/g;

/**
 * An `htu` as RFC 9449 §4.3 compares it: an absolute http(s) URI without query and fragment,
 * normalised as RFC 3986 §6.2.2–6.2.3 say (scheme and host lower case, default port left out, dot
 * segments resolved, an empty path `/`, escapes of unreserved characters decoded, other escapes
 * upper case). `null` for anything else.
 *
 * @example
 * normalizeHtu('HTTPS://API.example.com:443/a/../%7einvoke?x=1'); // 'https://api.example.com/~invoke'
 */
export function normalizeHtu(value: string): string | null {
  if (!URL.canParse(value)) return null;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const path = url.pathname
    .replace(UNRESERVED_ESCAPE, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)))
    .replace(ANY_ESCAPE, (escape) => escape.toUpperCase());
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * The URI a request was sent to, as its DPoP proof's `htu` must name it (normalised, see
 * {@link normalizeHtu}), or `null` when the request does not tell (a hand-made request).
 *
 * The path is the request target as received (Express's `originalUrl`, else `url`). The scheme and
 * host are those of `resource.identifier` when it is set (behind a proxy, the public origin), else
 * the request's own (`protocol` and `host`, which Express reads from `X-Forwarded-Proto` and
 * `X-Forwarded-Host` only when the app's `trust proxy` setting trusts the sender).
 */
export function requestTarget(request: AuthRequest, identifier: string | null): string | null {
  const path = request.originalUrl ?? request.url;
  if (path === undefined || !path.startsWith('/')) return null;
  const origin = identifier === null ? ownOrigin(request) : new URL(identifier).origin;
  return origin === null ? null : normalizeHtu(`${origin}${path}`);
}

function ownOrigin(request: AuthRequest): string | null {
  const host = request.host ?? (typeof request.headers.host === 'string' ? request.headers.host : undefined);
  if (host === undefined || host === '') return null;
  const protocol = request.protocol ?? (request.socket?.encrypted === true ? 'https' : 'http');
  return `${protocol}://${host}`;
}
