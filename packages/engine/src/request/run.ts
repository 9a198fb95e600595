import type { RequestAuth } from './auth-info.js';
import type { AccessStep, Generation } from '../generation.js';
import type { Plan } from '../access/access-table.js';
import type { Answer } from './answer.js';
import { decide, type EngineRequest, type Flow, type Outcome } from './decide.js';
import type { RequestScope } from './scope.js';

// The order of one request, written once for every adapter: the access step, the decision (in
// the same turn when it is synchronous), then the adapter's own I/O through its port. The three
// values `a`, `b`, `c` are the adapter's request, response and continuation (Express:
// `req, res, next`; Fastify: `request, reply, done`; an upgrade: `req, socket, head`), handed back
// untouched: the port is one constant object made at start-up, so nothing is allocated per request.

/** Headers to add to the answer, in the order they are set. */
export type HeaderList = readonly (readonly [string, string])[];

/** What an adapter does with the engine's outcomes; one constant object per adapter instance. */
export interface Port<A, B, C> {
  /**
   * The request goes on: `context` is the caller's (`undefined` on a `public` route or a CORS
   * preflight let through), `headers` go on whatever the app answers. When `scope.holding`, the
   * adapter reports the held decision when its answer starts (`reportWhenAnswered`).
   */
  pass(a: A, b: B, c: C, context: RequestAuth | undefined, headers: HeaderList, scope: RequestScope): void;
  /** Writes a refusal: `headers` first, then the answer's own headers, status and body. */
  refuse(a: A, b: B, c: C, answer: Answer, headers: HeaderList): void;
  /** An `onDecision` listener threw: answer 500 `internal` (`INTERNAL_ANSWER`), never a crash. */
  fail(a: A, b: B, c: C, error: unknown): void;
  /**
   * True: a refusal is written one microtask after it was decided. Node's HTTP parser marks a
   * request without a body `complete` only after it emitted it, and a refusal of an upload that was
   * never read must close the connection rather than drain it: the adapter's `refuse` reads
   * `complete` then. False where nothing is left to read (an upgrade's socket, a web `Response`).
   */
  readonly refuseLater: boolean;
}

const NO_HEADERS: HeaderList = Object.freeze([]);

/**
 * The `access` table's step for a request to `method` and `path` (a path as the adapter's router
 * takes it), then the rest of its order (see {@link runStep}); a listener that throws on a `deny`
 * reaches `port.fail`.
 */
export function runAccess<A, B, C>(
  generation: Generation,
  method: string,
  path: string,
  request: EngineRequest,
  scope: RequestScope,
  a: A,
  b: B,
  c: C,
  port: Port<A, B, C>,
): void {
  let step: AccessStep;
  try {
    step = generation.access(method, path, request, scope);
  } catch (error) {
    return port.fail(a, b, c, error);
  }
  runStep(step, request, scope, a, b, c, port);
}

/** As {@link runAccess} for a plan the adapter made itself (Fastify: once per route, see `Generation.step`). */
export function runPlan<A, B, C>(
  generation: Generation,
  plan: Plan,
  request: EngineRequest,
  scope: RequestScope,
  a: A,
  b: B,
  c: C,
  port: Port<A, B, C>,
): void {
  let step: AccessStep;
  try {
    step = generation.step(plan, scope, request);
  } catch (error) {
    return port.fail(a, b, c, error);
  }
  runStep(step, request, scope, a, b, c, port);
}

/** A step of the table: `public` passes untouched, a `deny` is refused, a flow is decided. */
export function runStep<A, B, C>(
  step: AccessStep,
  request: EngineRequest,
  scope: RequestScope,
  a: A,
  b: B,
  c: C,
  port: Port<A, B, C>,
): void {
  if (step.kind === 'public') return port.pass(a, b, c, undefined, NO_HEADERS, scope);
  if (step.kind === 'denied') return settle(step.outcome, scope, a, b, c, port);
  runFlow(step.flow, request, scope, a, b, c, port);
}

/**
 * One flow (`auth`, `auth.optional`, or the table's for a route): decided in the same turn when
 * the engine answers synchronously (no rate limit, a handler with `authenticateNow`), else when
 * it settled; the outcome goes to `port.pass` or `port.refuse`, a listener's error to `port.fail`.
 */
export function runFlow<A, B, C>(
  flow: Flow,
  request: EngineRequest,
  scope: RequestScope,
  a: A,
  b: B,
  c: C,
  port: Port<A, B, C>,
): void {
  let outcome: ReturnType<typeof decide>;
  try {
    outcome = decide(flow, request, scope);
  } catch (error) {
    return port.fail(a, b, c, error);
  }
  if (outcome instanceof Promise) {
    outcome.then(
      (settled) => settle(settled, scope, a, b, c, port),
      (error: unknown) => port.fail(a, b, c, error),
    );
    return;
  }
  settle(outcome as Outcome, scope, a, b, c, port);
}

/** An outcome: on with its context, or its refusal (a microtask later where the port asks it). */
function settle<A, B, C>(outcome: Outcome, scope: RequestScope, a: A, b: B, c: C, port: Port<A, B, C>): void {
  if (outcome.pass) return port.pass(a, b, c, outcome.context, outcome.headers, scope);
  refuseThrough(port, a, b, c, outcome.answer, outcome.headers);
}

/**
 * Writes a refusal through `port`, one microtask later when `port.refuseLater`: every refusal of an
 * adapter goes this way (the table's, the MCP gate's, a guard's), so each is written alike.
 */
export function refuseThrough<A, B, C>(
  port: Port<A, B, C>,
  a: A,
  b: B,
  c: C,
  answer: Answer,
  headers: HeaderList = NO_HEADERS,
): void {
  if (!port.refuseLater) return port.refuse(a, b, c, answer, headers);
  queueMicrotask(() => port.refuse(a, b, c, answer, headers));
}
