import { ConfigError, type AccessDefault } from '@authlayer/core';
import { planFor, type Generation, type Plan, type TableEntry } from '@authlayer/engine/internal';
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

/** True when the key's method covers a request of `method` (`*` every method, `GET` also `HEAD`). */
function coversMethod(entry: TableEntry, method: string): boolean {
  const named = entry.route.method;
  return named === '*' || named === method || (method === 'HEAD' && named === 'GET');
}

/** The entries that name a route reached by `method` whose keys are those of `urls`. */
function entriesNaming(entries: readonly TableEntry[], method: string, urls: readonly string[]): TableEntry[] {
  return entries.filter((entry) => coversMethod(entry, method) && urls.some((url) => namesUrl(entry, url)));
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
  return new ConfigError(
    keys.map((key) => ({
      path: `access.${key.length > 64 ? `${key.slice(0, 64)}...` : key}`,
      message:
        'names no route registered on this Fastify app (a key names a route by its method and URL as registered, prefix included)',
    })),
  );
}

/** What the table asks of the requests one route gets, made once per route and generation. */
export interface RoutePlan {
  readonly plan: Plan;
  /** The entries that name the route, in the table's order (for `explain`). */
  readonly entries: readonly TableEntry[];
  /** The entries that name the route, when one of them checks a tenant parameter (per request). */
  readonly tenantEntries: readonly TableEntry[] | null;
  readonly fallback: AccessDefault;
}

const plans = new WeakMap<Generation, Map<string, RoutePlan>>();

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
  let byRoute = plans.get(generation);
  if (byRoute === undefined) {
    byRoute = new Map();
    plans.set(generation, byRoute);
  }
  const id = url === undefined ? '' : `${method} ${url}`;
  let made = byRoute.get(id);
  if (made === undefined) {
    const fallback = generation.config.accessPolicy.default ?? 'authenticated';
    const entries = url === undefined ? [] : entriesNaming(generation.table.entries, method, book.urlsOf(method, url));
    const tenant = entries.some((entry) => typeof entry.value === 'object' && entry.value.tenantParam !== null);
    made = {
      plan: planFor(
        entries.map((entry) => ({ entry, params: null })),
        fallback,
      ),
      entries,
      tenantEntries: tenant ? entries : null,
      fallback,
    };
    byRoute.set(id, made);
  }
  return made;
}

/** The plan for one request: the route's, or with the request's own parameters for `tenant_param`. */
export function planOfRequest(made: RoutePlan, params: unknown): Plan {
  if (made.tenantEntries === null) return made.plan;
  const given = typeof params === 'object' && params !== null ? (params as Record<string, string>) : null;
  return planFor(
    made.tenantEntries.map((entry) => ({ entry, params: given })),
    made.fallback,
  );
}
