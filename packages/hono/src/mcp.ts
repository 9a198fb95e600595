import type { Context } from 'hono';
import { responseOf } from './answer.js';
import { ABORTED, readBoundedBody } from './read-body.js';
import {
  BODY_TOO_LARGE,
  NOT_JSON,
  type EngineRequest,
  type McpGate,
  type MessageRewrite,
  type RequestScope,
} from './request.js';

// MCP servers on Hono: a POST to `mcp.endpoint` or below it that the route's rule let through has
// its body read here (at most `mcp.max_body_bytes`: 413; not JSON: 400 with JSON-RPC's parse
// error) and its messages judged by the engine, as Express's `auth.access` and Fastify's hooks do.
// The bytes read are put back as the request's body (`c.req.raw`), so the handler reads them as
// sent: `c.req.json()`, or the SDK's `transport.handleRequest(c.req.raw)`.

/** What the gate made of a POST: the refusal to answer, or go on (with the list rewrite, if any). */
export type GateOutcome =
  | { readonly pass: false; readonly response: Response }
  | { readonly pass: true; readonly rewrite: MessageRewrite | null };

// The BOM kept, as Node's `Buffer#toString` keeps it: a body that starts with one is not JSON on
// Express either.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The parsed body, or the answer that ends the request (413, 400 parse error). */
async function bodyOf(gate: McpGate, c: Context): Promise<{ value: unknown } | Response> {
  // A body parser before the middleware read it already (`c.req.json()`): judged as parsed.
  const parsed = c.req.bodyCache.json as Promise<unknown> | undefined;
  if (parsed !== undefined)
    return parsed.then(
      (value) => ({ value }),
      () => responseOf(NOT_JSON),
    );
  if (Number(c.req.header('content-length')) > gate.maxBodyBytes) return responseOf(BODY_TOO_LARGE);
  const bytes = await readBoundedBody(c.req.raw, gate.maxBodyBytes);
  if (bytes === null) return responseOf(BODY_TOO_LARGE);
  // The client went away mid-body: nobody reads the answer, and no decision is made of it.
  if (bytes === ABORTED) return responseOf(NOT_JSON);
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return responseOf(NOT_JSON);
  }
  c.req.raw = new Request(c.req.raw, { body: bytes });
  return { value };
}

/**
 * Reads and judges the body of a POST to `mcp.endpoint` or below it (`McpGate.judge`, then its
 * list rewrite with `mcp.filter_lists`). Throws what an `onDecision` listener threw.
 */
export async function runMcpGate(
  gate: McpGate,
  c: Context,
  request: EngineRequest,
  scope: RequestScope,
): Promise<GateOutcome> {
  const body = await bodyOf(gate, c);
  if (body instanceof Response) return { pass: false, response: body };
  const context = c.get('auth');
  const verdict = gate.judge(body.value, request, context, scope);
  if (!verdict.pass) return { pass: false, response: responseOf(verdict.answer) };
  return { pass: true, rewrite: gate.listRewrite(body.value, request, context, scope) };
}

/**
 * The `Host` / `Origin` check of every request to `mcp.endpoint` or below (any method), before
 * the table and any credential: the 403 to answer, or null. Throws what `onDecision` threw.
 */
export function foreignResponse(gate: McpGate, request: EngineRequest, scope: RequestScope): Response | null {
  const answer = gate.refuseForeign(request, scope);
  return answer === null ? null : responseOf(answer);
}
