import type { RequestAuth } from '@authlayer/engine';
import {
  runPlan,
  type Answer,
  type EngineRequest,
  type Generation,
  type HeaderList,
  type Plan,
  type Port,
  type RequestScope,
} from '@authlayer/engine/internal';

// The one place the adapter meets the engine's request path: a web `Request` becomes the engine's
// request (a Node-style header record, once), the table's step and the decision are run, and the
// outcome comes back as what Hono needs. The engine runs the order (its request port); this adapter's I/O is a
// promise settled with the verdict.

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
  | { readonly pass: true; readonly context: RequestAuth | undefined; readonly headers: HeaderList }
  | { readonly pass: false; readonly answer: Answer; readonly headers: HeaderList };

type Settle = (verdict: Verdict) => void;
type Reject = (error: unknown) => void;

/**
 * Hono's port to the engine: the verdict settles the promise the middleware awaits (`a` resolves
 * it, `b` rejects it). A web `Response` leaves nothing unread, so a refusal is written at once.
 */
const PORT: Port<Settle, Reject, undefined> = {
  pass: (settle, _reject, _c, context, headers) => settle({ pass: true, context, headers }),
  refuse: (settle, _reject, _c, answer, headers) => settle({ pass: false, answer, headers }),
  fail: (_settle, reject, _c, error) => reject(error),
  refuseLater: false,
};

/**
 * Runs the engine's order for `plan` and `request` on its request port (the table's step, the
 * decision, in the same turn when it can). Rejects with what an `onDecision` listener threw.
 */
export function judge(
  generation: Generation,
  plan: Plan,
  request: EngineRequest,
  scope: RequestScope,
): Promise<Verdict> {
  return new Promise((settle, reject) => runPlan(generation, plan, request, scope, settle, reject, undefined, PORT));
}

// What the rest of the adapter takes from the engine's internal entry, named here only.
export {
  BODY_TOO_LARGE,
  NOT_JSON,
  pathOf,
  coversMethod,
  createEngine,
  guardRefusal,
  kindOf,
  planWithParams,
  RequestScope,
  routePlanOf,
  ruleCheck,
  unnamedKeysError,
} from '@authlayer/engine/internal';
export type {
  AccessRuleInput,
  Answer,
  EngineOptions,
  EngineRequest,
  Generation,
  McpGate,
  MessageRewrite,
  Plan,
  TableEntry,
} from '@authlayer/engine/internal';
