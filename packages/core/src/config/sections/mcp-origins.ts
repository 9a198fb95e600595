import { z } from 'zod';

// `mcp.allowed_hosts` and `mcp.allowed_origins`: the MCP transport specification's defence against
// DNS rebinding. A page of another site whose name was made to resolve to this server reaches it
// with that site's name in `Host` (and its origin in `Origin`); the endpoint serves neither.

/** The loopback names every MCP endpoint answers by default, on any port. */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

// A DNS name (letters, digits, `-`, `_`, dots) or a bracketed IPv6 literal, with an optional port.
const HOST =
  /^(?:\[[0-9a-f:.]+\]|[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*)(?::(\d{1,5}))?$/i;

/** True for `*` alone (the check off) or a list without `*`. */
const starAlone = (list: readonly string[]) => !list.includes('*') || list.length === 1;
const STAR_ALONE = 'must be ["*"] alone to turn the check off, or a list without "*"';

const hostEntry = z
  .string()
  .max(262, 'must be at most 262 characters')
  .refine((value) => {
    if (value === '*') return true;
    // Past the length limit (an issue of its own), the pattern is not run.
    if (value.length > 262) return true;
    const port = HOST.exec(value)?.[1];
    return HOST.test(value) && (port === undefined || Number(port) <= 65535);
  }, 'must be a host name such as mcp.example.com, optionally with a port (mcp.example.com:8443), or "*"');

/** True for an http(s) origin: scheme, host and optional port, no path, query or user. */
function isOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  const bare =
    url.pathname === '/' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  return /^https?:$/.test(url.protocol) && bare && !/[?#@]/.test(value.slice(url.protocol.length + 2));
}

const originEntry = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine(
    (value) => value === '*' || isOrigin(value),
    'must be an http(s) origin such as https://app.example.com (scheme, host and port only), or "*"',
  );

export const allowedHostsSchema = z
  .array(hostEntry)
  .min(1, 'must not be empty (["*"] turns the check off)')
  .max(256, 'must have at most 256 entries')
  .refine(starAlone, STAR_ALONE)
  .optional();

export const allowedOriginsSchema = z
  .array(originEntry)
  .max(256, 'must have at most 256 entries')
  .refine(starAlone, STAR_ALONE)
  .optional();

/**
 * The `Host` names the endpoint answers: as written (lower case), else the host name of
 * `resource.identifier` (any port: a proxy may or may not keep it) and the loopback names, else (no
 * `resource`) the loopback names only.
 */
export function allowedHostsOf(written: readonly string[] | undefined, identifier: string | null): readonly string[] {
  if (written !== undefined) return Object.freeze(written.map((host) => host.toLowerCase()));
  const own = identifier === null ? [] : [new URL(identifier).hostname];
  return Object.freeze([...new Set([...own, ...LOOPBACK_HOSTS])]);
}

/**
 * The `Origin`s the endpoint accepts: as written (serialised as a browser does), else the origin
 * of `resource.identifier`, else none (a request without `Origin` still passes).
 */
export function allowedOriginsOf(written: readonly string[] | undefined, identifier: string | null): readonly string[] {
  if (written !== undefined)
    return Object.freeze(written.map((origin) => (origin === '*' ? '*' : new URL(origin).origin)));
  return Object.freeze(identifier === null ? [] : [new URL(identifier).origin]);
}
