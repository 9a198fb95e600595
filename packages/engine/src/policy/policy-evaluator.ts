import type { AuthConfig, Logger } from '@authlayer/core';
import { matchEntries } from '../access/access-table.js';
import { buildGeneration, type Generation } from '../generation.js';
import { decide, type EngineRequest } from '../request/decide.js';
import { verdictOf } from './explain-request.js';
import { RecordingScope } from './recording-scope.js';
import { VerifiedCallers, type VerifiedCaller } from './verified-callers.js';
import { shapeOf, type PolicyRequest } from './policy-request.js';

export type { PolicyVerdict } from './policy-verdict.js';
import type { PolicyVerdict } from './policy-verdict.js';

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
  return {
    config,
    evaluate: async (caller, input) => {
      const shape = shapeOf(input, config);
      const request: EngineRequest = { method: shape.method, url: shape.url, headers: { ...shape.headers } };
      const presented = callers.present(caller);
      Object.assign(request.headers, presented.headers);
      const scope = new RecordingScope();
      const answer = await answerOf(generation, shape, request, scope);
      return verdictOf(answer, scope, {
        generation,
        matched: matchEntries(generation.table, shape.method, shape.path),
        messages: shape.message === null ? [] : [shape.message],
        context: presented.context,
        request,
      });
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
