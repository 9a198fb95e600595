import type { Request } from 'express';
import { registeredRoutes, type Registered, type RouterLike } from './access/unmatched-rules.js';

// The routes of each app, compiled once per shape of its router (routes are added at start-up;
// a route added later changes the count and compiles them again), so an OPTIONS flood costs a
// match per route, never a compilation.
const compiled = new WeakMap<RouterLike, { readonly layers: number; readonly routes: readonly Registered[] }>();

function layerCount(router: RouterLike | undefined): number {
  let count = 0;
  for (const layer of router?.stack ?? [])
    count += 1 + (Array.isArray(layer.handle?.stack) ? layerCount(layer.handle) : 0);
  return count;
}

/**
 * The methods Express's automatic OPTIONS answer lists for `req`'s path: those of every route of
 * the app that matches it, upper case, `HEAD` with `GET`, sorted, without `app.all`'s (as the
 * router's `_methods()`). Empty when no route matches: then Express has no answer of its own.
 */
export function allowedMethods(req: Request): string[] {
  const router = (req.app as { router?: RouterLike } | undefined)?.router;
  if (router === undefined) return [];
  const layers = layerCount(router);
  let entry = compiled.get(router);
  if (entry === undefined || entry.layers !== layers) {
    entry = { layers, routes: registeredRoutes(router, '') };
    compiled.set(router, entry);
  }
  const path = req.baseUrl + req.path;
  const methods = new Set<string>();
  for (const { route, methods: own } of entry.routes) {
    let matched: boolean;
    try {
      matched = route.matchPath(path) !== false;
    } catch {
      matched = false;
    }
    if (!matched) continue;
    for (const method of own) if (method !== '_all') methods.add(method.toUpperCase());
    if (own.has('get')) methods.add('HEAD');
  }
  return [...methods].sort();
}
