import type { AuthContext, AuthRequest } from '@authlayer/core';
import type { ScopeImplies } from '../access/rules.js';
import type { McpMessage } from '../mcp/mcp-messages.js';
import { formScopes, paramRefusal } from '../mcp/mcp-params.js';
import type { AppliedEntry } from '../mcp/mcp-table.js';
import { traceKey, type TraceEntry } from './policy-trace.js';

/**
 * What one MCP key says of a message, as the gate judges it (`judgeMcpMessage`): a template key's
 * scopes formed with the message's values (`files:{tenant}:read` → `files:acme:read`), then its
 * `params` conditions after deny, roles and claims and before scopes (field `params`, reason
 * `param_mismatch`). A value no scope can be formed with: field `scopes`, reason `invalid_request`
 * (the gate's 400).
 */
export function traceMcpKey(
  applied: AppliedEntry,
  message: McpMessage,
  context: AuthContext | null,
  request: AuthRequest,
  now: () => number,
  implies?: ScopeImplies,
): TraceEntry {
  const { key, value, variables } = applied;
  if (typeof value === 'string') return traceKey(key, value, context, request, null, now, implies);
  const formed = formScopes(value, variables);
  if (formed === null) return { key, verdict: 'refuse', field: 'scopes', reason: 'invalid_request' };
  const entry = traceKey(key, formed, context, request, null, now, implies);
  if (context === null || (entry.verdict === 'refuse' && entry.reason !== 'scope_missing')) return entry;
  if (paramRefusal(formed, message.params, variables, context) === null) return entry;
  return { key, verdict: 'refuse', field: 'params', reason: 'param_mismatch' };
}
