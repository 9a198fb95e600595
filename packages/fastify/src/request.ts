import { runPlan, type EngineRequest, type Generation } from '@authlayer/engine/internal';
import type { onRequestHookHandler } from 'fastify';
import type { FastifyPort } from './answer.js';
import { isMetadataRoute } from './metadata.js';
import type { RouteBook } from './route-book.js';
import { planOfRequest, routePlanOf } from './routes.js';
import { generationFor, newScope } from './scope.js';

/**
 * The plugin's `onRequest` hook: the access table, applied to the route Fastify chose, then the
 * engine's order (see the engine's `request/run.ts`), answered through `port`. The generation is
 * read once, when the request arrives, and the request keeps it to the end; in the same turn when
 * the engine answers synchronously (no rate limit, a handler with `authenticateNow`). The MCP `Host`
 * check, when it ran first, read it already (`generationFor`).
 */
export function createOnRequest(current: () => Generation, book: RouteBook, port: FastifyPort): onRequestHookHandler {
  return function authlayerOnRequest(request, reply, done) {
    if (isMetadataRoute(request)) return done();
    const generation = generationFor(request, current);
    const scope = newScope(request);
    const plan = planOfRequest(routePlanOf(generation, book, request.method, request.routeOptions.url), request.params);
    runPlan(generation, plan, request.raw as EngineRequest, scope, request, reply, done, port);
  };
}
