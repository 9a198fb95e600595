import type { AuthRequest, McpConfig } from '@authlayer/core';
import type { Answer } from '../request/answer.js';
import type { Flow } from '../request/decide.js';
import { decisionOf, type RequestScope } from '../request/scope.js';

/** Why a request to the MCP endpoint is refused before authentication (DNS rebinding). */
export type ForeignReason = 'host_not_allowed' | 'origin_not_allowed';

/** One `mcp.allowed_hosts` entry: a host name, and the port it requires (`null`: any). */
interface HostEntry {
  readonly name: string;
  readonly port: string | null;
}

// `name[:port]`, the name a DNS name or a bracketed IPv6 literal, as Host carries it (RFC 9110 §7.2).
const HOST = /^(\[[^\]]*\]|[^:[\]]*)(?::(\d*))?$/;

function hostOf(value: string): HostEntry | null {
  const parts = HOST.exec(value.toLowerCase());
  if (parts === null || parts[1] === '') return null;
  return { name: parts[1]!, port: parts[2] ?? null };
}

/** The one value of a header (a repeated one is no single value). */
function single(value: string | string[] | undefined): string | undefined | null {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : null;
  return value;
}

/**
 * The MCP transport specification's DNS-rebinding rule for `mcp.endpoint` and below: the request's
 * `Host` must be one of `mcp.allowed_hosts` (an entry without a port: any port) and its `Origin`,
 * when it has one, one of `mcp.allowed_origins`; `["*"]` turns a check off. A missing or malformed
 * `Host`, or an `Origin` that is not exactly an allowed origin (`null` included), is refused.
 * Returns the check of a request: `null` when it passes, else why not.
 */
export function createForeignCheck(mcp: McpConfig): (request: AuthRequest) => ForeignReason | null {
  const anyHost = mcp.allowedHosts.includes('*');
  const hosts = anyHost ? [] : mcp.allowedHosts.map((entry) => hostOf(entry)!);
  const anyOrigin = mcp.allowedOrigins.includes('*');
  const origins = new Set(mcp.allowedOrigins);
  const hostAllowed = (request: AuthRequest): boolean => {
    // HTTP/2 carries the host in `:authority`; Node's compatibility layer leaves `host` unset then.
    const value = single(request.headers.host ?? request.headers[':authority']);
    const host = typeof value === 'string' ? hostOf(value) : null;
    if (host === null) return false;
    return hosts.some((entry) => entry.name === host.name && (entry.port === null || entry.port === host.port));
  };
  return (request) => {
    if (!anyHost && !hostAllowed(request)) return 'host_not_allowed';
    if (anyOrigin) return null;
    const origin = single(request.headers.origin);
    // A request without Origin comes from no browser page: DNS rebinding needs one.
    if (origin === undefined) return null;
    return origin !== null && origins.has(origin.toLowerCase()) ? null : 'origin_not_allowed';
  };
}

/**
 * The 403 of a request refused by the `Host` / `Origin` check, and its decision (`forbidden`, the
 * reason, the config field that refused it): made before authentication, so no caller is named.
 */
export function refuseForeign(flow: Flow, scope: RequestScope, reason: ForeignReason): Answer {
  if (flow.onDecision !== undefined) scope.started = performance.now();
  const field = reason === 'host_not_allowed' ? 'mcp.allowed_hosts' : 'mcp.allowed_origins';
  scope.decide(flow, decisionOf(scope, 'forbidden', reason, null, flow.method), field);
  return reason === 'host_not_allowed' ? HOST_REFUSED : ORIGIN_REFUSED;
}

const HOST_REFUSED: Answer = Object.freeze({
  status: 403,
  headers: [],
  code: 'forbidden',
  message: 'the Host header names a host this MCP server does not serve',
});

const ORIGIN_REFUSED: Answer = Object.freeze({
  status: 403,
  headers: [],
  code: 'forbidden',
  message: 'the Origin header names an origin this MCP server does not accept',
});
