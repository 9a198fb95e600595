import { bearerError, type AuthContext, type AuthError, type AuthRequest, type ForbiddenError } from '@authlayer/core';
import { ROUTE_DENIED } from '../access/access-plan.js';
import { isScopeRefusal, joinScopeRefusals, ruleRefusal, type ScopeImplies } from '../access/rules.js';
import type { McpMessage } from './mcp-messages.js';
import { formScopes, paramRefusal } from './mcp-params.js';
import { mcpEntriesFor, type McpTable } from './mcp-table.js';

// The judgement of one MCP message by the keys that apply to it: the gate's for a call, and the
// list filter's for an entry of a list (its name, no arguments), so that both say the same.

/** A refusal and the key behind it; `unscopable`: a template value no scope can be formed with. */
export type MessageRefusal = { readonly error: AuthError | ForbiddenError; readonly key: string } | 'unscopable';

/** Who asks, and how the rules are read. */
export interface Judged {
  /** The caller; `undefined` when anonymous (a `public` route). */
  readonly context: AuthContext | undefined;
  /** Why a route let an anonymous caller through (the 401 it was spared), else `null`. */
  readonly anonymousBecause: AuthError | null;
  readonly now: () => number;
  readonly implies?: ScopeImplies;
  /** False: `params` conditions are not judged (a list entry, which has no arguments). */
  readonly params: boolean;
}

const NO_CREDENTIALS = bearerError('credentials_missing');

/**
 * The refusal of `message` by the MCP keys that apply to it, or `null`: a deny, a missing
 * credential or mode, a rule's 403 or 401 first; for want of scopes alone, every key's scopes in
 * one refusal (the challenge names all the message needs).
 */
export function judgeMcpMessage(
  table: McpTable,
  message: McpMessage,
  request: AuthRequest,
  judged: Judged,
): MessageRefusal | null {
  const { context } = judged;
  const scopes: { error: ForbiddenError; key: string }[] = [];
  let params: { error: ForbiddenError; key: string } | null = null;
  for (const { key, value: written, variables } of mcpEntriesFor(table, message.method, message.name)) {
    if (written === 'public' || written === 'optional') continue;
    if (written === 'deny') return { error: ROUTE_DENIED, key };
    // The route let an anonymous caller through: the 401 it was spared (or one asking for a credential).
    if (context === undefined || judged.anonymousBecause !== null) {
      return { error: judged.anonymousBecause ?? NO_CREDENTIALS, key };
    }
    if (written === 'authenticated') continue;
    if (written.modes !== null && !written.modes.includes(context.method as never)) {
      return { error: NO_CREDENTIALS, key };
    }
    const value = formScopes(written, variables);
    if (value === null) return 'unscopable';
    // A condition on the message before the scopes: no scope would make its value accepted.
    const error = ruleRefusal(value, context, request, judged.now, judged.implies);
    if (error !== null && !isScopeRefusal(error)) return { error, key };
    // Judged after every key's deny, roles and claims, so a call and its list entry (no
    // arguments) are refused for the same reason whenever the list leaves the entry out.
    const param: ForbiddenError | null =
      judged.params && params === null ? paramRefusal(value, message.params, variables, context) : null;
    if (param !== null) params = { error: param, key };
    if (error !== null) scopes.push({ error, key });
  }
  if (params !== null) return params;
  if (scopes.length === 0) return null;
  const error = joinScopeRefusals(
    scopes.map((each) => each.error),
    request,
  );
  return { error, key: scopes[0]!.key };
}
