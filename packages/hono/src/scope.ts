import type { Context } from 'hono';
import { RequestScope, type EngineRequest } from './request.js';

// One RequestScope per request, kept beside Hono's Context (the same object through every
// middleware and handler of the request), with the engine's view of the request: the access plan,
// why a request went on anonymously, the held decision.

/** What the middleware keeps of one request for the guards after it. */
export interface Scoped {
  readonly scope: RequestScope;
  readonly request: EngineRequest;
}

const scopes = new WeakMap<Context, Scoped>();

/** A new scope for the request of `c`; its id is Hono's `requestId` (the `hono/request-id` middleware), else none. */
export function newScope(c: Context, request: EngineRequest): RequestScope {
  const scope = new RequestScope(() => {
    const id: unknown = c.get('requestId' as never);
    return typeof id === 'string' ? id : null;
  });
  scopes.set(c, { scope, request });
  return scope;
}

/** The request's scope and engine request when the authlayer middleware ran, else null. */
export function scopedOf(c: Context): Scoped | null {
  return scopes.get(c) ?? null;
}
