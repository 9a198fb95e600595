import { compileRouteKey, type CompiledRoute } from '@authlayer/core';
import type { TableEntry } from '@authlayer/engine/internal';

/** A route the app registered: its full pattern (mount paths joined) and its methods. */
export interface Registered {
  readonly route: CompiledRoute;
  /** Lower-case methods, `_all` for `app.all`. */
  readonly methods: ReadonlySet<string>;
}

// The parts of Express 5's router (the `router` package) read here; its public shape since 2.0.
export interface RouterLike {
  readonly stack?: readonly LayerLike[];
}
interface LayerLike {
  readonly rawPath?: unknown;
  readonly route?: { readonly path?: unknown; readonly methods?: Readonly<Record<string, boolean>> };
  readonly handle?: RouterLike;
}

/**
 * The `access` keys that match no route registered on `app` (and its routers, at their mount
 * paths). A key matches a route when their methods agree (`*` and `app.all` agree with every
 * method, `HEAD` with `GET`) and one pattern matches an example path of the other. A middleware
 * mounted at a path (`app.use('/docs', ...)`) counts as a route of every method below that path.
 * Routes given as regular expressions cannot be compared and match no key. `served`: a path the
 * middleware answers `GET` at itself (the RFC 9728 document), a route of every app.
 */
export function unmatchedKeys(table: readonly TableEntry[], app: unknown, served: string | null = null): string[] {
  const registered = registeredRoutes((app as { router?: RouterLike } | null)?.router, '');
  const route = served === null ? null : compileQuietly(served);
  if (route !== null) registered.push({ route, methods: new Set(['get']) });
  return table
    .filter(({ route }) => !registered.some((candidate) => agrees(route, candidate)))
    .map(({ route }) => route.key);
}

function agrees(key: CompiledRoute, registered: Registered): boolean {
  const { methods } = registered;
  const method = key.method.toLowerCase();
  const methodAgrees =
    key.method === '*' || methods.has('_all') || methods.has(method) || (method === 'head' && methods.has('get'));
  if (!methodAgrees) return false;
  return (
    registered.route.examples.some((path) => matches(key, path)) ||
    key.examples.some((path) => matches(registered.route, path))
  );
}

function matches(route: CompiledRoute, path: string): boolean {
  try {
    return route.matchPath(path) !== false;
  } catch {
    return false;
  }
}

export function registeredRoutes(router: RouterLike | undefined, prefix: string): Registered[] {
  const found: Registered[] = [];
  for (const layer of router?.stack ?? []) {
    const paths = [layer.rawPath].flat();
    for (const path of paths) {
      if (typeof path !== 'string') continue;
      const full = join(prefix, path);
      if (layer.route !== undefined) {
        const route = compileQuietly(full);
        if (route !== null) found.push({ route, methods: new Set(Object.keys(layer.route.methods ?? {})) });
      } else if (Array.isArray(layer.handle?.stack)) {
        found.push(...registeredRoutes(layer.handle, full === '/' ? '' : full));
      } else if (full !== '/') {
        // A middleware mounted at a path (`app.use('/docs', serve)`) answers below it, any method;
        // one mounted at the root (`app.use(cors())`) is no route.
        const route = compileQuietly(`${full}{/*rest}`);
        if (route !== null) found.push({ route, methods: new Set(['_all']) });
      }
    }
  }
  return found;
}

function join(prefix: string, path: string): string {
  if (prefix === '') return path;
  return path === '/' ? prefix : prefix + path;
}

function compileQuietly(pattern: string): CompiledRoute | null {
  try {
    return compileRouteKey(`* ${pattern}`);
  } catch {
    return null;
  }
}
