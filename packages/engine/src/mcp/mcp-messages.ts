import type { AuthRequest } from '@authlayer/core';

/** A JSON-RPC request or notification of an MCP POST body: its method, and the name it is about. */
export interface McpMessage {
  readonly method: string;
  /** `params.name` (tools/call, prompts/get), `params.uri` (resources/read, ...); `null`: none. */
  readonly name: string | null;
  /** The message's `params` as sent (`undefined` without one): what a rule's `params` reads. */
  readonly params?: unknown;
}

/**
 * The requests and notifications of a parsed body (one message, or a batch); a response (no
 * `method`) and anything that is no object are the MCP server's to refuse, and no key applies to them.
 */
export function messagesOf(body: unknown): McpMessage[] {
  const list = Array.isArray(body) ? body : [body];
  const messages: McpMessage[] = [];
  for (const each of list) {
    if (typeof each !== 'object' || each === null) continue;
    const { method, params } = each as { method?: unknown; params?: unknown };
    if (typeof method !== 'string') continue;
    messages.push({ method, name: nameOf(method, params), params });
  }
  return messages;
}

/** What a message is about: a resource's URI for `resources/*`, else a tool's or prompt's name. */
function nameOf(method: string, params: unknown): string | null {
  if (typeof params !== 'object' || params === null) return null;
  const { name, uri } = params as { name?: unknown; uri?: unknown };
  const first = method.startsWith('resources/') ? uri : name;
  if (typeof first === 'string') return first;
  const second = method.startsWith('resources/') ? name : uri;
  return typeof second === 'string' ? second : null;
}

/**
 * The header (`Mcp-Method` or `Mcp-Name`) that says otherwise than the body: each present header
 * must equal what every message of the body says. `null` when they agree.
 */
export function mismatchedHeader(
  request: AuthRequest,
  messages: readonly McpMessage[],
): 'Mcp-Method' | 'Mcp-Name' | null {
  const method = request.headers['mcp-method'];
  if (method !== undefined && messages.some((message) => message.method !== method)) return 'Mcp-Method';
  const name = request.headers['mcp-name'];
  if (name !== undefined && messages.some((message) => message.name !== name)) return 'Mcp-Name';
  return null;
}
