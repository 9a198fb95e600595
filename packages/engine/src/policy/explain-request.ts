import type { AuthContext } from '@authlayer/core';
import type { MatchedEntry, Plan } from '../access/access-table.js';
import type { Generation } from '../generation.js';
import { messagesOf, type McpMessage } from '../mcp/mcp-messages.js';
import { mcpEntriesFor } from '../mcp/mcp-table.js';
import type { Answer } from '../request/answer.js';
import { decide, type EngineRequest, type Flow, type Outcome } from '../request/decide.js';
import type { PolicyVerdict } from './policy-verdict.js';
import { traceDefault, traceKey, type TraceEntry } from './policy-trace.js';
import { RecordingScope } from './recording-scope.js';
import { traceMcpKey } from './trace-mcp-key.js';

/** A request as an adapter's table judged it, for {@link explainRequest}. */
export interface ExplainInput {
  /** The method and path the table judged (Express: the path `auth.access` matches). */
  readonly method: string;
  readonly path: string;
  readonly request: EngineRequest;
  /** The entries that apply, with the route's parameters (Fastify: the keys that name the route). */
  readonly matched: readonly MatchedEntry[];
  /** What they ask together, as the adapter's `access` step takes it. */
  readonly plan: Plan;
  /** The parsed body: its MCP messages are judged when the request is a POST to `mcp.endpoint`. */
  readonly body?: unknown;
}

/**
 * `auth.explain(req)`: what `generation` makes of a real request with its real credentials
 * (verified by the serving modes, revocation included): every key that applied, in order, with its
 * verdict and the field that decided, then the answer. It is not the request's decision: nothing
 * is reported (`onDecision`, logs, spans), no rate limit is counted, the request is not changed.
 */
export async function explainRequest(generation: Generation, input: ExplainInput): Promise<PolicyVerdict> {
  const scope = new RecordingScope();
  scope.judged = { method: input.method, path: input.path };
  const step = generation.step(input.plan, scope);
  let answer: Answer | null = null;
  let context: AuthContext | undefined;
  if (step.kind === 'denied') answer = answerOf(step.outcome);
  else if (step.kind === 'flow') {
    const outcome = await decide(unheard(step.flow), input.request, scope);
    answer = answerOf(outcome);
    if (outcome.pass) context = outcome.context;
  }
  const mcp = generation.mcp;
  const messages = input.body !== undefined && mcp?.judges(input.method, input.path) ? messagesOf(input.body) : [];
  if (answer === null && messages.length > 0) {
    const verdict = mcp!.judge(input.body, input.request, context, scope);
    if (!verdict.pass) answer = verdict.answer;
  }
  // A denied route asks for no caller: the caller is verified anyway, for the other keys' verdicts.
  const caller = step.kind === 'denied' ? await callerOf(generation, input.request) : scope.caller;
  return verdictOf(answer, scope, {
    generation,
    matched: input.matched,
    messages,
    context: caller === null || caller.method === 'none' ? null : caller,
    request: input.request,
  });
}

/** The answer of a refusal, `null` when the request goes on. */
export function answerOf(outcome: Outcome): Answer | null {
  return outcome.pass ? null : outcome.answer;
}

/** The verdict of an answer and the decision `scope` recorded, with the trace of what applied. */
export function verdictOf(answer: Answer | null, scope: RecordingScope, traced: Traced): PolicyVerdict {
  const challenge = answer?.headers.find(([name]) => name === 'WWW-Authenticate')?.[1] ?? null;
  const recorded = scope.recorded;
  const wouldRefuse = recorded?.decision.outcome === 'would_refuse' ? recorded : null;
  return {
    status: answer?.status ?? 200,
    reason: answer === null ? null : (recorded?.decision.reason ?? answer.code),
    challenge,
    key: answer === null ? null : (recorded?.route ?? null),
    wouldRefuse: wouldRefuse === null ? null : { reason: wouldRefuse.decision.reason!, key: wouldRefuse.route },
    trace: traceOf(traced),
  };
}

/** What the trace is made of: the route keys that matched, the MCP messages, the caller. */
export interface Traced {
  readonly generation: Generation;
  readonly matched: readonly MatchedEntry[];
  readonly messages: readonly McpMessage[];
  readonly context: AuthContext | null;
  readonly request: EngineRequest;
}

/** Every key that applied to the request, then to its MCP messages, by the table's own checks. */
function traceOf({ generation, matched, messages, context, request }: Traced): TraceEntry[] {
  const now = generation.auth.now;
  const fallback = generation.config.accessPolicy.default ?? 'authenticated';
  const implies = generation.config.scopes?.implies;
  const trace =
    matched.length === 0
      ? [traceDefault(fallback, context)]
      : matched.map(({ entry, params }) =>
          traceKey(entry.route.key, entry.value, context, request, params, now, implies),
        );
  // Messages come only from a POST the MCP gate judges: the gate is there, its keys compiled.
  const table = generation.mcp?.table;
  if (table === undefined) return trace;
  for (const message of messages) {
    for (const applied of mcpEntriesFor(table, message.method, message.name)) {
      trace.push(traceMcpKey(applied, message, context, request, now, implies));
    }
  }
  return trace;
}

/** A flow that counts no rate limit and tells nobody (the scope records its decision). */
function unheard(flow: Flow): Flow {
  return { ...flow, limits: null, onDecision: undefined, logRefusals: false };
}

/** The caller the serving modes verify from the request's credentials, `null` without one. */
async function callerOf(generation: Generation, request: EngineRequest): Promise<AuthContext | null> {
  const scope = new RecordingScope();
  const outcome = await decide(unheard(generation.optional), request, scope);
  return outcome.pass ? (outcome.context ?? null) : null;
}
