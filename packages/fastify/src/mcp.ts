import {
  ABORTED,
  BODY_TOO_LARGE,
  NOT_JSON,
  pathOf,
  readBoundedBody,
  refuseThrough,
  type Generation,
  type McpGate,
  filterListAnswer,
} from '@authlayer/engine/internal';
import type { FastifyInstance, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { Readable } from 'node:stream';
import type { FastifyPort } from './answer.js';
import { generationFor, newScope, scopeOf } from './scope.js';

// MCP servers on Fastify: a POST to `mcp.endpoint` or below it (a route registered there, or a
// wildcard such as `/mcp/*`) has its body read in `preParsing` (at most `mcp.max_body_bytes`: 413;
// not JSON: 400 with JSON-RPC's parse error), handed on to Fastify's own JSON parser unchanged, and
// its messages judged by the engine in `preValidation`, once `request.body` is parsed and the
// route's own rule held (`onRequest`). Every request there has its `Host` and `Origin` checked
// first, in an `onRequest` hook added before the plugin's own (the transport's DNS-rebinding rule).

/**
 * True for a request to `mcp.endpoint` or below: its path as sent, or the URL of the route Fastify
 * chose (which its router options may have matched in another case or with other slashes).
 */
function covered(gate: McpGate, request: FastifyRequest): boolean {
  if (gate.covers(pathOf(request.url))) return true;
  const route = request.routeOptions.url;
  return route !== undefined && gate.covers(route);
}

/** The gate that judges this request's body, or null. */
function gateOf(generation: Generation, request: FastifyRequest): McpGate | null {
  const { mcp } = generation;
  return mcp !== null && request.method === 'POST' && covered(mcp, request) ? mcp : null;
}

/**
 * The `Host` / `Origin` check of every request to `mcp.endpoint` or below, before authentication:
 * add it before the hook that authenticates (Fastify runs `onRequest` hooks in order).
 */
export function addMcpHostCheck(app: FastifyInstance, current: () => Generation, port: FastifyPort): void {
  app.addHook('onRequest', (request, reply, done) => {
    const { mcp } = generationFor(request, current);
    if (mcp === null || !covered(mcp, request)) return done();
    let answer: ReturnType<McpGate['refuseForeign']>;
    try {
      answer = mcp.refuseForeign(request.raw, newScope(request));
    } catch (error) {
      // Only an onDecision listener throws here.
      return port.fail(request, reply, done, error);
    }
    if (answer === null) return done();
    refuseThrough(port, request, reply, done, answer);
  });
}

// A refusal never goes on: `preParsing`'s own `done` (which takes the body) is not the port's.
const NOT_ON: HookHandlerDoneFunction = () => undefined;

/** Adds the two hooks; `current` is the serving generation. */
export function addMcpHooks(app: FastifyInstance, current: () => Generation, port: FastifyPort): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    const gate = gateOf(generationFor(request, current), request);
    if (gate === null) return done(null, payload);
    if (Number(request.headers['content-length']) > gate.maxBodyBytes)
      return refuseThrough(port, request, reply, NOT_ON, BODY_TOO_LARGE);
    void readBoundedBody(payload, gate.maxBodyBytes).then((body) => {
      if (body === ABORTED) return;
      if (body === null) return refuseThrough(port, request, reply, NOT_ON, BODY_TOO_LARGE);
      try {
        JSON.parse(body.toString('utf8'));
      } catch {
        return refuseThrough(port, request, reply, NOT_ON, NOT_JSON);
      }
      done(null, Readable.from([body]));
    });
  });

  app.addHook('preValidation', (request, reply, done) => {
    const gate = gateOf(generationFor(request, current), request);
    if (gate === null) return done();
    let verdict: ReturnType<McpGate['judge']>;
    let rewrite: ReturnType<McpGate['listRewrite']> = null;
    try {
      const scope = scopeOf(request) ?? newScope(request);
      verdict = gate.judge(request.body, request.raw, request.auth, scope);
      if (verdict.pass) rewrite = gate.listRewrite(request.body, request.raw, request.auth, scope);
    } catch (error) {
      // Only an onDecision listener throws here.
      return port.fail(request, reply, done, error);
    }
    // mcp.filter_lists: the SDK writes its answer on reply.raw (a hijacked reply), read as written.
    if (rewrite !== null) filterListAnswer(reply.raw, rewrite);
    if (verdict.pass) return done();
    refuseThrough(port, request, reply, done, verdict.answer);
  });
}
