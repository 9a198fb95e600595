import type { ConfigError } from '@authlayer/core';
import {
  coversMethod,
  planWithParams,
  routePlanOf as routePlanOfGeneration,
  unnamedKeysError as keysError,
  type Generation,
  type Plan,
  type RoutePlan,
  type TableEntry,
} from '@authlayer/engine/internal';
import type { RegisteredRoute, RouteBook } from './route-book.js';

// How `access` keys name Fastify's routes: by the method and the URL as the route was registered
// (its prefix included), never by matching the request's path. Fastify's router decides which
// route a request reaches (its case, trailing slash and duplicate slash options); the keys that
// name that route apply.

/**
 * The URL of a Fastify route that a key's pattern names: the pattern itself, or, for a pattern that
 * ends in a named splat (`/files/*path`, which `loadConfig` takes), Fastify's wildcard `/files/*`.
 */
function fastifyUrlOf(pattern: string): string {
  return pattern.replace(/\*[A-Za-z_$][\w$]*$/, '*');
}

/** True when the key's pattern is written as the route's URL was registered. */
function namesUrl(entry: TableEntry, url: string): boolean {
  const { pattern } = entry.route;
  return pattern === url || fastifyUrlOf(pattern) === url;
}

/** The entries that name a route reached by `method` whose keys are those of `urls`. */
function entriesNaming(entries: readonly TableEntry[], method: string, urls: readonly string[]): TableEntry[] {
  return entries.filter(
    (entry) => coversMethod(entry.route.method, method) && urls.some((url) => namesUrl(entry, url)),
  );
}

/** The `access` keys that name no registered route: each is a rule that guards nothing. */
export function unnamedKeys(entries: readonly TableEntry[], routes: readonly RegisteredRoute[]): string[] {
  return entries
    .filter(
      (entry) =>
        !routes.some(
          (route) =>
            namesUrl(entry, route.url) && (entry.route.method === '*' || route.methods.has(entry.route.method)),
        ),
    )
    .map((entry) => entry.route.key);
}

/** The ConfigError of keys that name no route: `app.ready()` and `reload()` fail with it. */
export function unnamedKeysError(keys: readonly string[]): ConfigError {
  return keysError(keys, 'Fastify app (a key names a route by its method and URL as registered, prefix included)');
}

/**
 * The plan of the route a request reached: `url` is the route's URL as registered (`undefined`
 * when the request reached no route: then `access.default` decides); `book` tells which other
 * URLs' keys name it (a HEAD route Fastify added for a GET route at another URL).
 */
export function routePlanOf(
  generation: Generation,
  book: RouteBook,
  method: string,
  url: string | undefined,
): RoutePlan {
  return routePlanOfGeneration(generation, url === undefined ? '' : `${method} ${url}`, () =>
    entriesNaming(generation.table.entries, method, book.urlsOf(method, url!)),
  );
}

/** The plan for one request: the route's, or with the request's own parameters for `tenant_param`. */
export function planOfRequest(made: RoutePlan, params: unknown): Plan {
  return planWithParams(made, () =>
    typeof params === 'object' && params !== null ? (params as Record<string, string>) : null,
  );
}
