import { RequestScope, type Generation } from '@authlayer/engine/internal';
import type { FastifyRequest } from 'fastify';

// One RequestScope per request, kept on the request (a decoration Fastify knows of, set in
// `onRequest`): the access plan, why a request went on anonymously, the held decision.

/** The name of the request decoration that holds the scope. */
export const SCOPE = 'authlayerScope';

type Scoped = FastifyRequest & { [SCOPE]: RequestScope | null };

/** A new scope for the request; its id is Fastify's request id. */
export function newScope(request: FastifyRequest): RequestScope {
  const scope = new RequestScope(() => request.id);
  (request as Scoped)[SCOPE] = scope;
  return scope;
}

/** The request's scope when the plugin's `onRequest` hook ran, else undefined. */
export function scopeOf(request: FastifyRequest): RequestScope | undefined {
  return (request as Scoped)[SCOPE] ?? undefined;
}

/** The name of the request decoration that holds the generation serving the request. */
export const GENERATION = 'authlayerGeneration';

type Pinned = FastifyRequest & { [GENERATION]: Generation | null };

/**
 * The generation that serves `request`: read from `current` by the first hook that asks (the MCP
 * `Host` check, else the plugin's `onRequest`) and kept to the end, so a reload between two of the
 * plugin's hooks cannot judge one request by two configs.
 */
export function generationFor(request: FastifyRequest, current: () => Generation): Generation {
  return ((request as Pinned)[GENERATION] ??= current());
}
