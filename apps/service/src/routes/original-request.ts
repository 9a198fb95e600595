import type { IncomingHttpHeaders } from 'node:http';

/** Which headers describe the original request: nginx `auth_request`'s or Traefik ForwardAuth's. */
export type ForwardAuthProxy = 'nginx' | 'traefik';

/** The request a proxy asks about: its method and URI (origin-form: path and query). */
export interface OriginalRequest {
  readonly method: string;
  readonly uri: string;
}

const STYLES = {
  nginx: { method: 'x-original-method', uri: 'x-original-uri', uriName: 'X-Original-URI' },
  traefik: { method: 'x-forwarded-method', uri: 'x-forwarded-uri', uriName: 'X-Forwarded-Uri' },
} as const;

const METHOD = /^[A-Za-z]{1,20}$/;
const MAX_URI = 8192;

/**
 * The original request from exactly one header style: `proxy`'s when set (the other style is
 * ignored), else whichever style is present, and a refusal when both are, since a client can add
 * the style its proxy does not set and the proxy passes it on. Then the URI in canonical form only
 * (see {@link canonicalPathProblem}): the path the table judges must be the path the proxy and
 * the upstream resolve to. Returns the request, or why it is refused (a 400).
 */
export function readOriginalRequest(
  headers: IncomingHttpHeaders,
  ownMethod: string,
  proxy: ForwardAuthProxy | null,
): OriginalRequest | string {
  const present = (style: ForwardAuthProxy) =>
    headers[STYLES[style].method] !== undefined || headers[STYLES[style].uri] !== undefined;
  let style = proxy;
  if (style === null) {
    if (present('nginx') && present('traefik')) {
      return 'the request carries both X-Original-* and X-Forwarded-* headers; set forward_auth.proxy';
    }
    style = present('traefik') ? 'traefik' : 'nginx';
  }
  const { method: methodHeader, uri: uriHeader, uriName } = STYLES[style];
  const uri = single(headers[uriHeader]);
  if (uri === undefined) {
    return proxy === null
      ? 'the proxy sent no original URI (X-Forwarded-Uri or X-Original-URI)'
      : `the proxy sent no original URI (${uriName})`;
  }
  if (uri.length > MAX_URI) return 'the original URI is too long';
  const problem = canonicalPathProblem(uri);
  if (problem !== null) return `the original URI is not in canonical form: ${problem}`;
  // nginx's subrequest keeps the original method when the block sets no method header.
  const method = methodHeader in headers ? single(headers[methodHeader]) : ownMethod;
  if (method === undefined || !METHOD.test(method)) return 'the original method is not a method';
  return { method: method.toUpperCase(), uri };
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

// RFC 3986 pchar without ";" (a path parameter some servers cut off) and "%" (checked apart):
// unreserved / sub-delims / ":" / "@", and "/" between segments.
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,=:@/%]*$/;
// The query is the upstream's to read, not the table's: any visible ASCII.
const QUERY_CHARS = /^[\x21-\x7e]*$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Why `uri` is not a canonical origin-form URI, or `null` when it is. Canonical: a path that
 * starts with `/`, has no empty (`//`), `.` or `..` segment, no `\` or `;`, and no
 * percent-encoding that a server decodes into something else it resolves (`/`, `\`, `.`, any
 * unreserved character, `%00`) or that is not valid. Such a path is one that nginx (`merge_slashes`,
 * dot segments, decoding) and the upstream leave as it is, so the table judges what is served.
 * The query is not judged (visible ASCII), and a `#` anywhere is refused.
 */
export function canonicalPathProblem(uri: string): string | null {
  if (uri.includes('#')) return 'it holds "#"';
  if (!uri.startsWith('/')) return 'the path does not start with "/"';
  const queryAt = uri.indexOf('?');
  const path = queryAt === -1 ? uri : uri.slice(0, queryAt);
  const query = queryAt === -1 ? '' : uri.slice(queryAt + 1);
  if (path.includes('\\')) return 'the path holds "\\"';
  if (path.includes(';')) return 'the path holds ";"';
  if (!PATH_CHARS.test(path) || !QUERY_CHARS.test(query)) return 'it holds a character that must be percent-encoded';
  const encoding = percentProblem(path);
  if (encoding !== null) return encoding;
  if (path.includes('//')) return 'the path holds an empty segment ("//")';
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '..') return `the path holds a "${segment}" segment`;
  }
  return null;
}

function percentProblem(text: string): string | null {
  for (let at = text.indexOf('%'); at !== -1; at = text.indexOf('%', at + 1)) {
    const hex = text.slice(at + 1, at + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return 'it holds an invalid percent-encoding';
    const code = Number.parseInt(hex, 16);
    if (code === 0) return 'it holds "%00"';
    if (code === 0x2f || code === 0x5c) return `it holds an encoded "${String.fromCharCode(code)}"`;
    if (UNRESERVED.test(String.fromCharCode(code))) return 'it holds a percent-encoded unreserved character';
  }
  return null;
}
