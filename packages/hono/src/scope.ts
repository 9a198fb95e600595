import type { Context } from 'hono';
import { RequestScope, type EngineRequest } from './request.js';

// One RequestScope per request, kept in Hono's Context (the same object through every middleware
// and handler of the request) under a symbol, with the engine's view of the request: the access
// plan, why a request went on anonymously, the held decision. Not in a WeakMap keyed by the
// Context: the scope refers back to the Context, and V8's young-generation collector keeps such an
// entry's value (so the whole request) alive, which moved every request to the old generation.

/** What the middleware keeps of one request for the guards after it. */
export interface Scoped {
  readonly scope: RequestScope;
  readonly request: EngineRequest;
}

const SCOPED = Symbol('authlayer.scope');

// Hono types its variables by name (`ContextVariableMap`); a symbol no app can name stays out of it.
type Variables = { get(key: typeof SCOPED): Scoped | undefined; set(key: typeof SCOPED, value: Scoped): void };

/** A new scope for the request of `c`; its id is Hono's `requestId` (the `hono/request-id` middleware), else none. */
export function newScope(c: Context, request: EngineRequest): RequestScope {
  const scope = new RequestScope(() => {
    const id: unknown = c.get('requestId' as never);
    return typeof id === 'string' ? id : null;
  });
  (c as unknown as Variables).set(SCOPED, { scope, request });
  return scope;
}

/** The request's scope and engine request when the authlayer middleware ran, else null. */
export function scopedOf(c: Context): Scoped | null {
  return (c as unknown as Variables).get(SCOPED) ?? null;
}
