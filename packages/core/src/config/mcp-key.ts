// The `"MCP <method>"`, `"MCP <method> <name>"` and `"MCP <method> *"` keys of the `access` table:
// rules for the JSON-RPC messages POSTed to `mcp.endpoint` (see the `mcp` section).

/** `MCP`, one space, a JSON-RPC method, and optionally one space and a name (or `*`). */
export const MCP_KEY = /^MCP ([\x21-\x7e]{1,128})(?: ([\x21-\x7e]{1,2048}))?$/;

/** An `access` key that names MCP messages rather than an HTTP route. */
export interface McpKey {
  readonly key: string;
  /** The JSON-RPC method (`tools/call`). */
  readonly method: string;
  /**
   * The tool or prompt name, or the resource URI; `*` for the method's default; `null`: every
   * message of the method. A name ending in `*` matches by prefix, one with `{variable}`s is an
   * RFC 6570 template (see `compileMcpName`).
   */
  readonly name: string | null;
}

/** True when `key` starts as an MCP key does (`MCP ` and something); it may still be malformed. */
export function isMcpKey(key: string): boolean {
  return key.startsWith('MCP ');
}

/**
 * The parts of an MCP key, or `null` when `key` is not one (a route key, or a malformed MCP key).
 *
 * @example
 * parseMcpKey('MCP tools/call get_forecast'); // { key, method: 'tools/call', name: 'get_forecast' }
 */
export function parseMcpKey(key: string): McpKey | null {
  const parts = MCP_KEY.exec(key);
  if (parts === null) return null;
  return { key, method: parts[1] as string, name: parts[2] ?? null };
}
