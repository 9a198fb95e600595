import { compileRouteKey } from '@authlayer/core';

// The name of the splat that stands for what lies below the endpoint: no endpoint names it.
const BELOW = 'authlayerMcpBelow';

/**
 * The test of a path against `endpoint` and everything below it (`/mcp`, `/mcp/`, `/mcp/x`,
 * `/mcp/a/b`, `/MCP/x`; not `/mcpx`), matched as the table matches a route (see `compileRouteKey`):
 * what a handler mounted at the endpoint (`app.use`, a splat route, a router, Fastify's wildcard)
 * may be handed. A path whose percent-encoding is broken is covered (a handler may still get it).
 *
 * @throws what `compileRouteKey` throws for the endpoint itself
 */
export function compileBelow(endpoint: string): (path: string) => boolean {
  const own = compileRouteKey(`POST ${endpoint}`);
  const base = endpoint.replace(/\/+$/, '');
  let below: ReturnType<typeof compileRouteKey> | null;
  try {
    below = compileRouteKey(base === '' ? `POST /{*${BELOW}}` : `POST ${base}{/*${BELOW}}`);
  } catch {
    // An endpoint pattern that already ends in a splat: it covers what lies below it itself.
    below = null;
  }
  const matches = (route: ReturnType<typeof compileRouteKey>, path: string): boolean => {
    try {
      return route.matchPath(path) !== false;
    } catch {
      // A parameter's broken percent-encoding: the route's path still matched.
      return true;
    }
  };
  return (path) => matches(own, path) || (below !== null && matches(below, path));
}
