import type { AuthContext, AuthError, AuthRequest, ForbiddenError } from '@authlayer/core';
import { isScopeRefusal, neededScopes, type ScopeImplies } from '../access/rules.js';
import { judgeMcpMessage } from './mcp-judge.js';
import type { McpTable } from './mcp-table.js';

// `mcp.filter_lists`: a list answer holds only what the caller may call, judged by the same keys
// as the call itself (the entry's name, no arguments), so the list and the call never disagree.

/** A list method → the array of its result, the method a call of an entry is, the entry's name field. */
const LISTS: Readonly<Record<string, readonly [field: string, call: string, name: string]>> = Object.freeze({
  'tools/list': ['tools', 'tools/call', 'name'],
  'prompts/list': ['prompts', 'prompts/get', 'name'],
  'resources/list': ['resources', 'resources/read', 'uri'],
  'resources/templates/list': ['resourceTemplates', 'resources/read', 'uriTemplate'],
});

/** True for a method whose result `filter_lists` filters. */
export const isListMethod = (method: string): boolean => Object.hasOwn(LISTS, method);

/** The caller a list is filtered for. */
export interface ListCaller {
  readonly context: AuthContext | undefined;
  readonly anonymousBecause: AuthError | null;
  readonly request: AuthRequest;
  readonly now: () => number;
  readonly implies?: ScopeImplies;
}

/**
 * The `result` of a `method` list answer with only the entries `caller` may call: an entry
 * refused by a deny, a missing credential, roles, permissions, claims or a step-up is left out;
 * one refused only for want of scopes stays, its `_meta["authlayer/scopes"]` listing the scopes a
 * call needs; `params` conditions are not judged (an entry has no arguments). A result of another
 * shape, or of another method, is returned as it is.
 */
export function filterListResult(table: McpTable, method: string, result: unknown, caller: ListCaller): unknown {
  const list = LISTS[method];
  if (list === undefined || typeof result !== 'object' || result === null) return result;
  const [field, call, nameField] = list;
  const entries = (result as Record<string, unknown>)[field];
  if (!Array.isArray(entries)) return result;
  const kept: unknown[] = [];
  // The refusals judged here are read, never thrown: capturing a stack for each (most of a list's
  // cost, docs/design/mcp-lists.md) buys nothing. Synchronous, so no other code sees the limit.
  const judged = { ...caller, params: false };
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    for (const entry of entries) {
      const name = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[nameField] : null;
      // An entry without a name cannot be called: nothing to show.
      if (typeof name !== 'string') continue;
      const refusal = judgeMcpMessage(table, { method: call, name }, caller.request, judged);
      // A value no scope can be formed with is judged when called: the entry stays.
      if (refusal === null || refusal === 'unscopable') kept.push(entry);
      else if (isScopeRefusal(refusal.error)) kept.push(withScopes(entry as object, refusal.error));
    }
  } finally {
    Error.stackTraceLimit = limit;
  }
  return { ...(result as object), [field]: kept };
}

function withScopes(entry: object, error: ForbiddenError): object {
  const scopes = neededScopes(error);
  const meta = (entry as { _meta?: unknown })._meta;
  const own = typeof meta === 'object' && meta !== null ? meta : {};
  return { ...entry, _meta: { ...own, 'authlayer/scopes': [...scopes] } };
}
