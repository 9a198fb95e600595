import type { AuthError } from './auth-error.js';
import { bearerError } from './challenge.js';

// RFC 8707 and MCP's authorization specification (revision 2026-07-28): a token's `aud` and the
// resource identifier are compared as URIs, not byte for byte, so `HTTPS://MCP.example.com/mcp/`
// names `https://mcp.example.com/mcp`. A string that is no http(s) URL (`api://default`) is
// compared exactly.

const DEFAULT_PORT: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/**
 * The form two audiences are compared in: an http(s) URL with its scheme and host in lower case,
 * no default port, `/` for an empty path and one trailing slash dropped; any other string as it is.
 */
export function audienceForm(value: string): string {
  if (!/^https?:\/\//i.test(value) || !URL.canParse(value)) return value;
  const url = new URL(value);
  // A URL with user information is no resource identifier (RFC 9728 §1.2): compared exactly.
  if (url.username !== '' || url.password !== '') return value;
  // WHATWG URL already lower-cases scheme and host, drops the default port and turns '' into '/'.
  const port = url.port === '' || url.port === DEFAULT_PORT[url.protocol] ? '' : `:${url.port}`;
  const path = url.pathname.length > 1 && url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  return `${url.protocol}//${url.hostname}${port}${path}${url.search}`;
}

/** True when `a` and `b` name the same resource (scheme and host case-insensitive, a default port as none, an empty path as `/`, one trailing slash ignored); no prefix match. */
export function sameAudience(a: string, b: string): boolean {
  return a === b || audienceForm(a) === audienceForm(b);
}

/** The sentence of a token refused by `resource.audience_strict`. */
export const OTHER_AUDIENCE = 'the token is also for another audience';

/**
 * The refusal of a token's `aud` claim for `audience`, or null when it is accepted: `aud` must be
 * `audience` or a list holding it (compared with {@link sameAudience}); with `strict`, every entry
 * must name it (a token minted for several resources is refused, 401 `invalid_token`).
 */
export function audienceRefusal(aud: unknown, audience: string, strict = false): AuthError | null {
  const values = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  const named = values.filter((value): value is string => typeof value === 'string' && sameAudience(value, audience));
  if (named.length === 0) return bearerError('audience_mismatch');
  if (strict && named.length !== values.length) return bearerError('audience_mismatch', OTHER_AUDIENCE);
  return null;
}
