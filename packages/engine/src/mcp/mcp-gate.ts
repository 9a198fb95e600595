import {
  AuthError,
  isAuthError,
  ForbiddenError,
  insufficientScopeChallenge,
  isRequirableName,
  type AccessValue,
  type AuthContext,
  type AuthRequest,
  type McpConfig,
} from '@authlayer/core';
import { neededScopes, withoutOfflineAccess } from '../access/rules.js';
import { refusalAnswer, type Answer } from '../request/answer.js';
import type { Flow } from '../request/decide.js';
import { decisionOf, type RequestScope } from '../request/scope.js';
import { createForeignCheck, refuseForeign } from './foreign-request.js';
import { compileBelow } from './mcp-paths.js';
import { messagesOf, mismatchedHeader } from './mcp-messages.js';
import type { MessageRewrite } from './filter-list-answer.js';
import { filterListResult, isListMethod } from './list-filter.js';
import { judgeMcpMessage } from './mcp-judge.js';
import { compileMcpTable, type McpTable } from './mcp-table.js';

/** What the MCP keys make of one POST body: go on, or the answer to write (the decision is made). */
export type McpVerdict = { readonly pass: true } | { readonly pass: false; readonly answer: Answer };

/**
 * The MCP messages POSTed to `mcp.endpoint`: which requests carry them (`judges`), how large a body
 * may be (`maxBodyBytes`), the judgement of a parsed body (`judge`), and the `Host` / `Origin`
 * check of every request there (`refuseForeign`). The adapter reads the body; the engine decides.
 */
export interface McpGate {
  readonly endpoint: string;
  readonly maxBodyBytes: number;
  /** The MCP keys of the table, compiled (for `explain`'s trace of each message). */
  readonly table: McpTable;
  /**
   * True for a path a handler serving `mcp.endpoint` may receive: the endpoint's own and every path
   * below it (`app.use('/mcp')` and `app.post('/mcp{/*rest}')` serve `/mcp/x` too), matched as the
   * table matches routes (ASCII letters in either case, trailing slashes).
   */
  covers(path: string): boolean;
  /** True for a POST to a path `covers`: its body is judged as MCP messages. */
  judges(method: string, path: string): boolean;
  /**
   * The transport's DNS-rebinding rule, for a request to a path `covers` (any method), before
   * authentication: `null` when its `Host` and `Origin` are allowed (`mcp.allowed_hosts`,
   * `mcp.allowed_origins`), else the 403 to write (`forbidden`, reason `host_not_allowed` or
   * `origin_not_allowed`), its decision made through `scope`.
   */
  refuseForeign(request: AuthRequest, scope: RequestScope): Answer | null;
  /**
   * The verdict on a parsed body, once the route's own rule let the request through (`context`:
   * the caller, `undefined` on a `public` route): `Mcp-Method` / `Mcp-Name` against the body (400),
   * then every message by the MCP keys that apply; a batch is refused whole. A refusal is the
   * request's one decision (`forbidden` or `refused`, the reason, the MCP key), through `scope`.
   */
  judge(body: unknown, request: AuthRequest, context: AuthContext | undefined, scope: RequestScope): McpVerdict;
  /**
   * With `mcp.filter_lists`, for a body that is one list request (`tools/list`, ...) the body
   * `judge` passed: the rewrite of its answer's messages (see `filterListResult`); else `null`.
   */
  listRewrite(
    body: unknown,
    request: AuthRequest,
    context: AuthContext | undefined,
    scope: RequestScope,
  ): MessageRewrite | null;
}

const PASS: McpVerdict = Object.freeze({ pass: true });

/** 413: a body over `mcp.max_body_bytes`, read no further. */
export const BODY_TOO_LARGE: Answer = Object.freeze({
  status: 413,
  headers: [],
  code: 'payload_too_large',
  message: 'the request body is too large',
});

/** 400 with JSON-RPC's parse error as the body (JSON-RPC 2.0 §5.1: id null, code -32700). */
export const NOT_JSON: Answer = Object.freeze({
  status: 400,
  headers: [],
  code: 'invalid_request',
  message: 'the request body is not valid JSON',
  body: Object.freeze({ jsonrpc: '2.0', id: null, error: Object.freeze({ code: -32700, message: 'Parse error' }) }),
});

/**
 * 400 for a JSON array: Streamable HTTP (since 2025-06-18) takes one message per POST, so a batch
 * is an Invalid Request (JSON-RPC 2.0 §5.1: -32600), refused before any message is judged.
 */
export const BATCH_REFUSED: McpVerdict = Object.freeze({
  pass: false,
  answer: Object.freeze({
    status: 400,
    headers: [],
    code: 'invalid_request',
    message: 'a JSON-RPC batch is not accepted: send one message per request',
    body: Object.freeze({
      jsonrpc: '2.0',
      id: null,
      error: Object.freeze({ code: -32600, message: 'Invalid Request: batches are not supported' }),
    }),
  }),
});

/** 400: a template variable's value cannot form the scope a rule names with it (no scope-token). */
export const UNSCOPABLE: McpVerdict = Object.freeze({
  pass: false,
  answer: Object.freeze({
    status: 400,
    headers: [],
    code: 'invalid_request',
    message: 'the message names a resource whose URI cannot form the scope its rule requires',
  }),
});

const mismatch = (header: string): McpVerdict => ({
  pass: false,
  answer: {
    status: 400,
    headers: [],
    code: 'invalid_request',
    message: `the ${header} header does not match the body`,
  },
});

/** The gate of `config.mcp`, or `null` without one; `flow` reports its decisions. */
export function createMcpGate(
  mcp: McpConfig | null,
  access: Readonly<Record<string, AccessValue>>,
  flow: Flow,
): McpGate | null {
  if (mcp === null) return null;
  const table = compileMcpTable(access);
  const challengeScopes = mcp.challengeScopes ?? 'required';
  const covers = compileBelow(mcp.endpoint);
  const foreign = createForeignCheck(mcp);
  return {
    endpoint: mcp.endpoint,
    maxBodyBytes: mcp.maxBodyBytes,
    table,
    covers,
    judges: (method, path) => method === 'POST' && covers(path),
    refuseForeign(request, scope) {
      const reason = foreign(request);
      return reason === null ? null : refuseForeign(flow, scope, reason);
    },
    judge(body, request, context, scope) {
      if (Array.isArray(body) && mcp.batches !== 'judge') return BATCH_REFUSED;
      const messages = messagesOf(body);
      const header = mismatchedHeader(request, messages);
      if (header !== null) return mismatch(header);
      for (const message of messages) {
        const refusal = judgeMcpMessage(table, message, request, {
          context,
          anonymousBecause: scope.anonymousBecause,
          now: flow.now,
          implies: flow.implies,
          params: true,
        });
        if (refusal === null) continue;
        if (refusal === 'unscopable') return UNSCOPABLE;
        // report_only spares a rule's refusals (a step-up's 401 too), never a missing credential.
        if (flow.reportOnly && (!isAuthError(refusal.error) || refusal.error.reason === 'step_up_required')) {
          scope.wouldRefuseLater(refusal.error.reason, refusal.key);
          continue;
        }
        return { pass: false, answer: refuse(flow, scope, refusal, context, request, challengeScopes) };
      }
      return PASS;
    },
    listRewrite(body, request, context, scope) {
      if (mcp.filterLists !== true || typeof body !== 'object' || body === null || Array.isArray(body)) return null;
      const { method, id } = body as { method?: unknown; id?: unknown };
      if (typeof method !== 'string' || !isListMethod(method) || id === undefined) return null;
      const caller = {
        context,
        anonymousBecause: scope.anonymousBecause,
        request,
        now: flow.now,
        implies: flow.implies,
      };
      return (message) => {
        if (typeof message !== 'object' || message === null || (message as { id?: unknown }).id !== id) return message;
        if (!('result' in message)) return message;
        return { ...message, result: filterListResult(table, method, message.result, caller) };
      };
    },
  };
}

/**
 * The decision and the answer of a refused message. For want of scopes alone (RFC 6750 §3.1,
 * `insufficient_scope`; MCP's "Scope Challenge Handling", SEP-2350): `scope` lists every scope the
 * message needs, as the rules write them (the client adds them to what it holds); with
 * `token_and_required`, the token's own scopes first, for a client that replaces its list.
 * The route's own scopes come first (the operation is a POST to it). `resource_metadata` says where to learn how. Any other 403 has no challenge: no scope would help.
 */
function refuse(
  flow: Flow,
  scope: RequestScope,
  { error, key }: { error: AuthError | ForbiddenError; key: string },
  context: AuthContext | undefined,
  request: AuthRequest,
  form: 'required' | 'token_and_required',
): Answer {
  const metadata = flow.resourceMetadata;
  if (isAuthError(error)) {
    // A step-up's 401 refuses a known caller (its decision names it); any other, an anonymous one.
    report(flow, scope, error, error.reason === 'step_up_required' ? context : undefined, key);
    return refusalAnswer(error, metadata, request);
  }
  report(flow, scope, error, context, key);
  if (error.reason !== 'scope_missing' || error.challenge === null || context === undefined) {
    return refusalAnswer(new ForbiddenError(error.reason, null, error.missing));
  }
  // The operation is the POST too: the route's own scopes (already held) are needed as well.
  const route = scope.plan?.rules.flatMap(({ rule }) => rule.scopes) ?? [];
  const needed = withoutOfflineAccess([...route, ...neededScopes(error)]);
  const held = form === 'token_and_required' ? withoutOfflineAccess(context.scopes.filter(isRequirableName)) : [];
  const challenge = insufficientScopeChallenge(error.message, [...new Set([...held, ...needed])]);
  return refusalAnswer(new ForbiddenError(error.reason, challenge, error.missing), metadata, request);
}

/** The request's one decision: a decision the route let through and holds becomes this refusal. */
function report(
  flow: Flow,
  scope: RequestScope,
  error: AuthError | ForbiddenError,
  context: AuthContext | undefined,
  key: string,
): void {
  if (scope.holding) return scope.refusedLater(error, key);
  const refused = isAuthError(error);
  const decision = decisionOf(
    scope,
    refused ? 'refused' : 'forbidden',
    error.reason,
    context?.userId ?? null,
    context?.method ?? flow.method,
  );
  scope.decide(flow, decision, key);
}
