import { z } from 'zod';
import type { SectionIssue } from '../fields.js';
import { allowedHostsOf, allowedHostsSchema, allowedOriginsOf, allowedOriginsSchema } from './mcp-origins.js';

// The top-level `mcp` section: the Streamable HTTP endpoint of an MCP server, whose POST bodies
// authlayer reads and judges by the `"MCP <method> <name>"` keys of the `access` table.

const MIB = 1024 * 1024;

export const mcpSchema = z
  .strictObject({
    // The path as the app routes it (`/mcp`): the table's `"POST /mcp"` must name it.
    endpoint: z
      .string()
      .max(2048, 'must be at most 2048 characters')
      .regex(/^\/[\x21-\x7e]*$/, 'must be a path such as /mcp (printable ASCII, starting with /)'),
    max_body_bytes: z
      .int()
      .min(1, 'must be at least 1')
      .max(64 * MIB, 'must be at most 67108864 (64 MiB)')
      .default(MIB),
    // `required` (SEP-2350): a challenge names the scopes the operation needs; `token_and_required`
    // adds the token's own, for clients that replace their scope list with the challenge's.
    challenge_scopes: z.enum(['required', 'token_and_required']).default('required'),
    // `refuse`: a JSON array body is 400 (Streamable HTTP since 2025-06-18); `judge`: each message.
    batches: z.enum(['refuse', 'judge']).default('refuse'),
    // List answers (tools/list, ...) hold only what the caller may call, by the same keys.
    filter_lists: z.boolean().default(false),
    // DNS rebinding: the `Host` names and `Origin`s the endpoint answers (see mcp-origins.ts).
    allowed_hosts: allowedHostsSchema,
    allowed_origins: allowedOriginsSchema,
  })
  .nullable()
  .default(null);

/** `mcp`, converted to camelCase. */
export interface McpConfig {
  /** The path of the MCP server's Streamable HTTP endpoint (`/mcp`): its POST bodies are judged. */
  readonly endpoint: string;
  /** The largest POST body read at `endpoint`; a larger one is 413. Default 1 MiB. */
  readonly maxBodyBytes: number;
  /** What an `insufficient_scope` challenge's `scope` lists. Default `required`. */
  readonly challengeScopes?: 'required' | 'token_and_required';
  /** A JSON array body: refused whole (400, JSON-RPC -32600) or each message judged. Default `refuse`. */
  readonly batches?: 'refuse' | 'judge';
  /** True: list answers hold only the entries the caller may call (see `mcp.filter_lists`). Default false. */
  readonly filterLists?: boolean;
  /**
   * The `Host` names requests to `endpoint` and below may carry (lower case; `host` or `host:port`;
   * an entry without a port matches any port). Default: the host name of `resource.identifier` and
   * `localhost`, `127.0.0.1`, `[::1]`; without `resource`, the loopback names only. `["*"]`: any.
   */
  readonly allowedHosts: readonly string[];
  /**
   * The `Origin`s those requests may carry (a request without `Origin` passes). Default: the origin
   * of `resource.identifier`; without `resource`, none. `["*"]`: any.
   */
  readonly allowedOrigins: readonly string[];
}

/** `mcp` as the engine reads it; `identifier`: `resource.identifier` (the defaults' host and origin). */
export function toMcpConfig(raw: z.output<typeof mcpSchema>, identifier: string | null): McpConfig | null {
  if (raw === null) return null;
  return {
    endpoint: raw.endpoint,
    maxBodyBytes: raw.max_body_bytes,
    challengeScopes: raw.challenge_scopes,
    batches: raw.batches,
    filterLists: raw.filter_lists,
    allowedHosts: allowedHostsOf(raw.allowed_hosts, identifier),
    allowedOrigins: allowedOriginsOf(raw.allowed_origins, identifier),
  };
}

/**
 * The rules that span `mcp` and `access`: MCP keys need `mcp.endpoint`, and `mcp.endpoint` must be
 * a route the table names (`"POST /mcp"`), so that the HTTP route has a rule of its own before the
 * messages are judged. `namesEndpoint` tells whether a route key of the table matches a POST there.
 */
export function mcpIssues(
  mcp: z.output<typeof mcpSchema>,
  mcpKeys: readonly string[],
  namesEndpoint: (endpoint: string) => boolean,
): SectionIssue[] {
  if (mcp === null) {
    if (mcpKeys.length === 0) return [];
    const shown = mcpKeys[0]!.slice(0, 64);
    return [{ path: ['mcp', 'endpoint'], message: `is required: access has MCP keys (${shown}) but no mcp.endpoint` }];
  }
  if (namesEndpoint(mcp.endpoint)) return [];
  return [
    {
      path: ['mcp', 'endpoint'],
      message: `no key of access names it: add "POST ${mcp.endpoint.slice(0, 64)}" (authenticated, or a rule)`,
    },
  ];
}
