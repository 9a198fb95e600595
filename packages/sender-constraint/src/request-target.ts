import type { AuthRequest } from '@authlayer/core';

// RFC 3986 §2.3: percent-encoded unreserved characters mean the characters themselves.
const UNRESERVED_ESCAPE = /%(?:[46][1-9A-Fa-f]|[57][0-9Aa]|3[0-9]|2[Dd]|2[Ee]|5[Ff]|7[Ee])/g;
const ANY_ESCAPE = /%[0-9a-f]{2}/g;

// The path of an absolute URI as written: after `scheme://authority`, up to `?` or `#`.
const RAW_PATH = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\\]*([^?#]*)/;
// A `.` or `..` segment, literal or with its dots percent-encoded in any case (`%2e`, `.%2E`).
// `\` counts as a separator, since the URL parser treats it as `/` in http(s) URIs.
const DOT_SEGMENT = /(?:^|[/\\])(?:\.|%2e){1,2}(?=$|[/\\])/i;

/**
 * True when `path` holds a dot segment (`/a/../b`, `/./b`, `/a/%2e%2e/b`, `/a/..`): a path the URL
 * parser would change (it resolves them), while Express routes it as given (`/a/../invoke`
 * reaches `app.all('/a/*p')`). A DPoP proof must name the path the request line gives, so such a
 * path is never compared: it is refused.
 */
export function holdsDotSegment(path: string): boolean {
  return DOT_SEGMENT.test(path);
}

/**
 * An `htu` as RFC 9449 §4.3 compares it: an absolute http(s) URI without query and fragment,
 * normalised as RFC 3986 §6.2.2–6.2.3 say (scheme and host lower case, default port left out, an
 * empty path `/`, escapes of unreserved characters decoded, other escapes upper case), except that
 * dot segments are not resolved: a path holding one (see `holdsDotSegment`) gives `null`, as
 * does anything that is not such a URI.
 *
 * @example
 * normalizeHtu('HTTPS://API.example.com:443/%7einvoke?x=1'); // 'https://api.example.com/~invoke'
 * normalizeHtu('https://api.example.com/a/../invoke'); // null
 */
export function normalizeHtu(value: string): string | null {
  if (!URL.canParse(value)) return null;
  if (holdsDotSegment(RAW_PATH.exec(value)?.[1] ?? '')) return null;
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
 * The path is the request target as received (Express's `originalUrl`, else `url`); one holding a
 * dot segment gives `null` (see `holdsDotSegment`). The scheme and
 * host are those of `resource.identifier` when it is set (behind a proxy, the public origin), else
 * the request's own (`protocol` and `host`, which Express reads from `X-Forwarded-Proto` and
 * `X-Forwarded-Host` only when the app's `trust proxy` setting trusts the sender).
 */
export function requestTarget(request: AuthRequest, identifier: string | null): string | null {
  const path = request.originalUrl ?? request.url;
  if (path === undefined || !path.startsWith('/')) return null;
  // The URL parser would resolve them; Express does not: refused rather than compared changed.
  if (holdsDotSegment(path.split('?', 1)[0]!)) return null;
  const origin = identifier === null ? ownOrigin(request) : new URL(identifier).origin;
  return origin === null ? null : normalizeHtu(`${origin}${path}`);
}

function ownOrigin(request: AuthRequest): string | null {
  const host = request.host ?? (typeof request.headers.host === 'string' ? request.headers.host : undefined);
  if (host === undefined || host === '') return null;
  const protocol = request.protocol ?? (request.socket?.encrypted === true ? 'https' : 'http');
  return `${protocol}://${host}`;
}
