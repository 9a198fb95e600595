import { ConfigError, type AccessDefault, type RouteParams } from '@authlayer/core';
import type { Generation } from '../generation.js';
import { planFor, type Plan, type TableEntry } from './access-table.js';

// For an adapter whose framework chooses the route itself (Fastify, Hono): the keys that name the
// route the framework chose apply, found once per route and generation, not per request.

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
 * The plan of the route `id` names (the adapter's own key for a method and a route; `''`: no
 * route, `access.default` decides), made from `entriesOf()` the first time this generation is
 * asked for it.
 */
export function routePlanOf(generation: Generation, id: string, entriesOf: () => readonly TableEntry[]): RoutePlan {
  let byRoute = plans.get(generation);
  if (byRoute === undefined) {
    byRoute = new Map();
    plans.set(generation, byRoute);
  }
  let made = byRoute.get(id);
  if (made === undefined) {
    const fallback = generation.config.accessPolicy.default ?? 'authenticated';
    const entries = id === '' ? [] : entriesOf();
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

/** The plan of one request of the route: the route's, or with its parameters for `tenant_param`. */
export function planWithParams(made: RoutePlan, params: () => RouteParams | null): Plan {
  if (made.tenantEntries === null) return made.plan;
  const given = params();
  return planFor(
    made.tenantEntries.map((entry) => ({ entry, params: given })),
    made.fallback,
  );
}

/** True when a key of `named` method covers a request of `method` (`*` every method, `GET` also `HEAD`). */
export function coversMethod(named: string, method: string): boolean {
  return named === '*' || named === method || (method === 'HEAD' && named === 'GET');
}

/**
 * The ConfigError of keys that name no route of the app (`framework`: how the app names its
 * routes, for the message): start-up and `reload()` fail with it.
 */
export function unnamedKeysError(keys: readonly string[], framework: string): ConfigError {
  return new ConfigError(
    keys.map((key) => ({
      path: `access.${key.length > 64 ? `${key.slice(0, 64)}...` : key}`,
      message: `names no route registered on this ${framework}`,
    })),
  );
}
