import type { AuthConfig, AuthContext, AuthError, ForbiddenError, Logger } from '@authlayer/core';
import { matchEntries } from '../access/access-table.js';
import type { AuthDecision } from '../decision.js';
import { buildGeneration, type Generation } from '../generation.js';
import { compileMcpTable, mcpEntriesFor, type McpTable } from '../mcp/mcp-table.js';
import { decide, type EngineRequest } from '../request/decide.js';
import { RequestScope, type ReportTo } from '../request/scope.js';
import { traceDefault, traceKey, type TraceEntry } from './policy-trace.js';
import { VerifiedCallers, type VerifiedCaller } from './verified-callers.js';
import { shapeOf, type PolicyRequest } from './policy-request.js';

/** The engine's answer to one case, and every key that applied. */
export interface PolicyVerdict {
  /** 200 when the request goes on (to the app, or to the MCP server). */
  readonly status: number;
  /** The refusal's reason (`role_missing`, `credentials_missing`, ...); `null` when it goes on. */
  readonly reason: string | null;
  /** The `WWW-Authenticate` of the answer, else `null`. */
  readonly challenge: string | null;
  /** The key that decided a refusal (`default` for `default: deny`), else `null`. */
  readonly key: string | null;
  /** `access.report_only`: the refusal the table would have answered, else `null`. */
  readonly wouldRefuse: { readonly reason: string; readonly key: string | null } | null;
  /** Every key that applied, in order: route keys, then the MCP message's keys. */
  readonly trace: readonly TraceEntry[];
}

/** Judges cases of one config as the engine serving it would. */
export interface PolicyEvaluator {
  readonly config: AuthConfig;
  /**
   * The decision for `caller` sending `request`.
   *
   * @throws CallerError or RequestError when the case cannot be made for this config
   */
  evaluate(caller: VerifiedCaller, request: PolicyRequest): Promise<PolicyVerdict>;
}

const SILENT: Logger = { info() {}, warn() {}, error() {} };

/**
 * An evaluator of `config`'s policy, with no network and no secret: the generation the engine
 * builds for it (the table, modes' flows, MCP keys) around stand-in handlers that answer each
 * caller's context as its mode would have made it (see `VerifiedCallers`). Rate limits and
 * revocation are left out: they judge traffic, not policy.
 *
 * @example
 * const evaluator = await createPolicyEvaluator(config);
 * await evaluator.evaluate({ api_key: 'reader' }, { request: 'GET /reports/7' }); // { status: 403, reason: 'role_missing', ... }
 */
export async function createPolicyEvaluator(
  config: AuthConfig,
  options: { readonly now?: () => number } = {},
): Promise<PolicyEvaluator> {
  const now = options.now ?? Date.now;
  const callers = new VerifiedCallers(config);
  const generation = await buildGeneration(config, {
    deps: { env: {}, logger: SILENT, now },
    importModule: callers.importModule(),
    onDecision: undefined,
    passPreflight: false,
    limits: () => Promise.resolve(null),
    revocation: () => Promise.resolve(null),
  });
  const mcpTable = compileMcpTable(config.access);
  return {
    config,
    evaluate: async (caller, input) => {
      const shape = shapeOf(input, config);
      const request: EngineRequest = { method: shape.method, url: shape.url, headers: { ...shape.headers } };
      const presented = callers.present(caller);
      Object.assign(request.headers, presented.headers);
      const scope = new RecordingScope();
      const answer = await answerOf(generation, shape, request, scope);
      const challenge = answer?.headers.find(([name]) => name === 'WWW-Authenticate')?.[1] ?? null;
      const recorded = scope.recorded;
      const wouldRefuse = recorded?.decision.outcome === 'would_refuse' ? recorded : null;
      return {
        status: answer?.status ?? 200,
        reason: answer === null ? null : (recorded?.decision.reason ?? answer.code),
        challenge,
        key: answer === null ? null : (recorded?.route ?? null),
        wouldRefuse: wouldRefuse === null ? null : { reason: wouldRefuse.decision.reason!, key: wouldRefuse.route },
        trace: traceOf(generation, mcpTable, shape, request, presented.context, now),
      };
    },
  };
}

type Shape = ReturnType<typeof shapeOf>;

/** The request through the generation as an adapter runs it: the table, the flow, the MCP keys. */
async function answerOf(generation: Generation, shape: Shape, request: EngineRequest, scope: RecordingScope) {
  scope.judged = { method: shape.method, path: shape.path };
  const step = generation.access(shape.method, shape.path, request, scope);
  const outcome =
    step.kind === 'denied' ? step.outcome : step.kind === 'public' ? null : await decide(step.flow, request, scope);
  if (outcome !== null && !outcome.pass) return outcome.answer;
  const { mcp } = generation;
  if (shape.body !== undefined && mcp !== null && mcp.judges(shape.method, shape.path)) {
    const verdict = mcp.judge(shape.body, request, outcome?.context, scope);
    if (!verdict.pass) return verdict.answer;
  }
  return null;
}

/** Every key that applied to the request, then to its MCP message, by the table's own checks. */
function traceOf(
  generation: Generation,
  mcpTable: McpTable,
  shape: Shape,
  request: EngineRequest,
  context: AuthContext | null,
  now: () => number,
): TraceEntry[] {
  const caller = context;
  const matched = matchEntries(generation.table, shape.method, shape.path);
  const fallback = generation.config.accessPolicy.default ?? 'authenticated';
  const implies = generation.config.scopes?.implies;
  const trace =
    matched.length === 0
      ? [traceDefault(fallback, caller)]
      : matched.map(({ entry, params }) =>
          traceKey(entry.route.key, entry.value, caller, request, params, now, implies),
        );
  if (shape.message !== null) {
    for (const { key, value } of mcpEntriesFor(mcpTable, shape.message.method, shape.message.name)) {
      trace.push(traceKey(key, value, caller, request, null, now, implies));
    }
  }
  return trace;
}

const UNHEARD: AuthDecision = {
  outcome: 'allowed',
  method: 'none',
  reason: null,
  userId: null,
  requestId: null,
  durationMs: 0,
};

/** A request's scope that keeps its one decision and the key that made it, for the verdict. */
class RecordingScope extends RequestScope {
  recorded: { decision: AuthDecision; route: string | null } | null = null;

  constructor() {
    super(() => null);
  }

  override decide(to: ReportTo, decision: AuthDecision, route: string | undefined): void {
    this.recorded = { decision, route: route ?? null };
    super.decide(to, decision, route);
  }

  override wouldRefuseLater(reason: string, route: string): void {
    // Nobody listens here, so an allowed decision may not have been built: the refusal is kept anyway.
    const decision = this.recorded?.decision ?? UNHEARD;
    this.recorded = { decision: { ...decision, outcome: 'would_refuse', reason }, route };
    super.wouldRefuseLater(reason, route);
  }

  override refusedLater(error: AuthError | ForbiddenError, route: string): void {
    const decision = this.recorded?.decision;
    if (decision !== undefined) this.recorded = { decision: { ...decision, reason: error.reason }, route };
    super.refusedLater(error, route);
  }
}
