import type { ConfigError } from '@authlayer/core';
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import {
  coversMethod,
  planWithParams,
  routePlanOf,
  unnamedKeysError as keysError,
  type Generation,
  type Plan,
  type TableEntry,
} from './request.js';

// How `access` keys name Hono's routes: by the method and the path as the route was registered
// (a sub-app's base path included, as Hono merges it), never by matching the request's path.
// Hono's router decides which routes a request reaches; the keys that name the one that answers
// apply.

/** A route as Hono lists it (`app.routes`, `matchedRoutes(c)`). */
export interface HonoRoute {
  readonly method: string;
  readonly path: string;
  /** The function Hono runs for the route (a middleware takes `next`, a handler does not). */
  readonly handler: (...args: never[]) => unknown;
}

/** The handler a route runs (a sub-app's route wraps it; Hono marks the wrapper). */
function targetOf(handler: HonoRoute['handler']): HonoRoute['handler'] {
  const inner = (handler as { __COMPOSED_HANDLER?: HonoRoute['handler'] }).__COMPOSED_HANDLER;
  return inner === undefined ? handler : targetOf(inner);
}

/**
 * True for a route that answers rather than passes on: Hono's own test (`hono/dev`'s
 * `isMiddleware`) is that a middleware takes `next`, a handler does not.
 */
export function isHandler(route: HonoRoute): boolean {
  return targetOf(route.handler).length < 2;
}

/**
 * True for a function registered by a routing method (`app.get(path, fn)`, `app.on`): `app.use`
 * registers for every method (`ALL`). Hono's WebSocket helpers (`upgradeWebSocket` of `hono/ws`,
 * `@hono/node-ws`, Bun's, Deno's) take `next` (they pass a request that is no upgrade on) yet are
 * a route's endpoint: a key names such a route too.
 */
export function isRouted(route: HonoRoute): boolean {
  return isHandler(route) || route.method !== 'ALL';
}

/**
 * The route Hono matched for the request of `c`, and its index: the first matched handler in
 * registration order, the one Hono's compose reaches first (a handler must answer); without one,
 * the last function a routing method registered (a WebSocket helper's route); `null` when the
 * request reaches neither (Hono's 404 behind `app.use` middleware).
 */
export function routeOf(c: Context): { readonly route: HonoRoute; readonly index: number } | null {
  const routes = matchedRoutes(c) as readonly HonoRoute[];
  let index = routes.findIndex(isHandler);
  if (index === -1) index = routes.findLastIndex((route) => route.method !== 'ALL');
  return index === -1 ? null : { route: routes[index]!, index };
}

/** True when `entry` names `route`: the same path, a method it covers (a route of `app.all`: any). */
function namesRoute(entry: TableEntry, route: HonoRoute, method: string): boolean {
  return entry.route.pattern === route.path && (route.method === 'ALL' || coversMethod(entry.route.method, method));
}

/** The `access` keys that name no route of `routes` (`app.routes`): a handler's, or a routing method's. */
export function unnamedKeys(entries: readonly TableEntry[], routes: readonly HonoRoute[]): string[] {
  const handlers = routes.filter(isRouted);
  return entries
    .filter(
      (entry) =>
        !handlers.some(
          (route) =>
            entry.route.pattern === route.path &&
            (entry.route.method === '*' || route.method === 'ALL' || route.method === entry.route.method),
        ),
    )
    .map((entry) => entry.route.key);
}

/** The ConfigError of keys that name no route: `reload()` fails with it once routes are known. */
export function unnamedKeysError(keys: readonly string[]): ConfigError {
  return keysError(keys, 'Hono app (a key names a route by its method and path as registered)');
}

/**
 * The plan for the request of `c`: the route's, or with the route's own parameters when a key
 * checks `tenant_param` (read as the matched route's handler would read them).
 */
export function planOfRequest(generation: Generation, c: Context): Plan {
  const matched = routeOf(c);
  const method = c.req.method;
  if (matched === null) return routePlanOf(generation, '', () => []).plan;
  const { route, index } = matched;
  const made = routePlanOf(generation, `${method} ${route.method} ${route.path}`, () =>
    generation.table.entries.filter((entry) => namesRoute(entry, route, method)),
  );
  return planWithParams(made, () => paramsAt(c, index));
}

/** The decoded parameters of the matched route at `index` (Hono reads them for its `routeIndex`). */
function paramsAt(c: Context, index: number): Record<string, string> {
  const own = c.req.routeIndex;
  c.req.routeIndex = index;
  try {
    return c.req.param() as Record<string, string>;
  } finally {
    c.req.routeIndex = own;
  }
}

/** The route a request reached, as registered (`GET /reports/:id`), for a guard's decision. */
export function routeName(c: Context): string {
  const matched = routeOf(c);
  return matched === null ? c.req.method : `${c.req.method} ${matched.route.path}`;
}
