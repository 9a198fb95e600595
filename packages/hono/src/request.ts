import type { AuthContext } from '@authlayer/core';
import {
  decide,
  type Answer,
  type EngineRequest,
  type Generation,
  type Outcome,
  type Plan,
  type RequestScope,
} from '@authlayer/engine/internal';

// The one place the adapter meets the engine's request path: a web `Request` becomes the engine's
// request (a Node-style header record, once), the table's step and the decision are run, and the
// outcome comes back as what Hono needs. When the engine's request port lands, this file is what
// moves onto it.

/**
 * The headers of a web `Request` as the engine takes them: a record with lower-case names (the
 * Fetch standard already lower-cases them and joins a repeated header with `, `, as Node does for
 * most headers). Made once per request.
 */
export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** The parts of a web request the engine reads: method, target, headers, and where it was sent. */
export function engineRequestOf(raw: Request, socket?: EngineRequest['socket']): EngineRequest {
  const url = new URL(raw.url);
  const target = url.pathname + url.search;
  return {
    method: raw.method,
    url: target,
    originalUrl: target,
    headers: headerRecord(raw.headers),
    protocol: url.protocol.slice(0, -1),
    host: url.host,
    ...(socket === undefined ? {} : { socket }),
  };
}

/** What the engine made of one request: go on (with the caller and headers), or an answer to write. */
export type Verdict =
  | { readonly pass: true; readonly context: AuthContext | undefined; readonly headers: Outcome['headers'] }
  | { readonly pass: false; readonly answer: Answer; readonly headers: Outcome['headers'] };

const PUBLIC: Verdict = Object.freeze({ pass: true, context: undefined, headers: Object.freeze([]) });

/**
 * Runs the table's step for `plan` and the decision for `request`, as the Fastify adapter's hook
 * does: `public` passes untouched, a `deny` is its refusal, else the flow decides (in the same turn
 * when it can). Rejects with what an `onDecision` listener threw.
 */
export async function judge(
  generation: Generation,
  plan: Plan,
  request: EngineRequest,
  scope: RequestScope,
): Promise<Verdict> {
  const step = generation.step(plan, scope, request);
  if (step.kind === 'public') return PUBLIC;
  const outcome = step.kind === 'denied' ? step.outcome : await decide(step.flow, request, scope);
  return outcome.pass
    ? { pass: true, context: outcome.context, headers: outcome.headers }
    : { pass: false, answer: outcome.answer, headers: outcome.headers };
}

// What the rest of the adapter takes from the engine's internal entry, named here only.
export {
  createEngine,
  kindOf,
  planFor,
  refusalAnswer,
  RequestScope,
  ruleRefusal,
  toRule,
} from '@authlayer/engine/internal';
export type {
  AccessRuleInput,
  Answer,
  EngineOptions,
  EngineRequest,
  Generation,
  Plan,
  TableEntry,
} from '@authlayer/engine/internal';
