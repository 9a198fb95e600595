import {
  explainRequest,
  pathOf,
  type EngineRequest,
  type Generation,
  type PolicyVerdict,
} from '@authlayer/engine/internal';
import type { FastifyRequest } from 'fastify';
import type { RouteBook } from './route-book.js';
import { planOfRequest, routePlanOf } from './routes.js';

/**
 * `app.authlayer.explain(request)`: the serving table's judgement of the route Fastify chose for
 * `request`, with its real credentials, key by key (see `explainRequest`). Never the request's
 * decision: nothing is reported or counted, `request.auth` is left as it is.
 */
export function explainWith(
  current: () => Generation,
  book: RouteBook,
): (request: FastifyRequest) => Promise<PolicyVerdict> {
  return (request) => {
    const generation = current();
    const url = request.routeOptions.url;
    const made = routePlanOf(generation, book, request.method, url);
    const params = typeof request.params === 'object' && request.params !== null ? request.params : null;
    return explainRequest(generation, {
      method: request.method,
      path: url ?? pathOf(request.url),
      request: request.raw as EngineRequest,
      matched: made.entries.map((entry) => ({ entry, params: params as Record<string, string> | null })),
      plan: planOfRequest(made, request.params),
      body: request.body,
    });
  };
}
