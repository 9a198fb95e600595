import type { Logger } from '@authlayer/core';
import type { Context, MiddlewareHandler } from 'hono';
import { failed, responseOf } from './answer.js';
import { filterListResponse } from './filter-list-response.js';
import { foreignResponse, runMcpGate } from './mcp.js';
import { metadataResponse } from './metadata.js';
import { engineRequestOf, judge, pathOf, type Generation, type MessageRewrite } from './request.js';
import { planOfRequest } from './routes.js';
import { newScope } from './scope.js';

// One request, in the order of Express's `auth.access`: the RFC 9728 document (answered before the
// table), the `Host` / `Origin` check of the MCP endpoint (before any credential), the table's
// decision for the route Hono matched, the MCP gate of a POST there, then the app.

/**
 * The middleware of `authlayer()`: each request is judged by the generation serving when it
 * arrives, which it keeps to the end.
 */
export function createOnRequest(current: () => Generation, logger: Logger): MiddlewareHandler {
  return async function authlayer(c, next) {
    const generation = current();
    const request = engineRequestOf(c.req.raw, socketOf(c));
    const path = pathOf(request.url);
    const metadata = metadataResponse(generation, c.req.method, path);
    if (metadata !== null) return metadata;
    const scope = newScope(c, request);
    const gate = generation.mcp !== null && generation.mcp.covers(path) ? generation.mcp : null;
    let rewrite: MessageRewrite | null = null;
    let verdict: Awaited<ReturnType<typeof judge>>;
    try {
      const foreign = gate === null ? null : foreignResponse(gate, request, scope);
      if (foreign !== null) return foreign;
      verdict = await judge(generation, planOfRequest(generation, c), request, scope);
      if (!verdict.pass) return responseOf(verdict.answer, verdict.headers);
      if (verdict.context !== undefined) c.set('auth', verdict.context);
      if (gate !== null && c.req.method === 'POST') {
        const gated = await runMcpGate(gate, c, request, scope);
        if (!gated.pass) return gated.response;
        rewrite = gated.rewrite;
      }
    } catch (error) {
      // Only an onDecision listener throws here.
      return failed(logger, error);
    }
    try {
      await next();
    } finally {
      // The held `allowed` decision is reported once the app answered (a guard may refuse before).
      scope.answered();
    }
    // mcp.filter_lists: the list the server answered holds only what the caller may call.
    if (rewrite !== null) {
      const filtered = await filterListResponse(c.res, rewrite);
      // Unset first: Hono would copy the old answer's headers (its Content-Length) onto the new one.
      c.res = undefined;
      c.res = filtered;
    }
    for (const [name, value] of verdict.headers) c.res.headers.set(name, value);
  };
}

/**
 * The connection of a request where the runtime gives one: `@hono/node-server` puts Node's request
 * in `c.env.incoming` (its socket's peer address feeds the failed-auth limit; a TLS socket, the
 * client certificate). Elsewhere none: the limits key on the caller, not its address.
 */
function socketOf(c: Context): Parameters<typeof engineRequestOf>[1] {
  const env = c.env as { incoming?: { socket?: Parameters<typeof engineRequestOf>[1] } } | undefined;
  return env?.incoming?.socket;
}
