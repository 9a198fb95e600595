import { explainRequest, matchEntries, pathOf, type Generation, type PolicyVerdict } from '@authlayer/engine/internal';
import type { Request } from 'express';

/**
 * `auth.explain(req)`: the serving table's judgement of `req` as `auth.access` mounted on the app
 * judges it (its method and the path of `req.originalUrl`), with its real credentials, key by key
 * (see `explainRequest`). Never the request's decision: nothing is reported or counted, `req.auth`
 * is left as it is. A parsed JSON body (`express.json()`) of a POST to `mcp.endpoint` has its MCP
 * messages judged too.
 */
export function explainWith(current: () => Generation): (req: Request) => Promise<PolicyVerdict> {
  return (req) => {
    const generation = current();
    const path = pathOf(req.originalUrl ?? req.url);
    return explainRequest(generation, {
      method: req.method,
      path,
      request: req,
      matched: matchEntries(generation.table, req.method, path),
      plan: generation.plan(req.method, path, req),
      body: req.body as unknown,
    });
  };
}
