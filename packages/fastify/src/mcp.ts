import type { Logger } from '@authlayer/core';
import {
  ABORTED,
  BODY_TOO_LARGE,
  NOT_JSON,
  readBoundedBody,
  type Generation,
  type McpGate,
} from '@authlayer/engine/internal';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { failed, refuse } from './reply.js';
import { newScope, scopeOf } from './scope.js';

// MCP servers on Fastify: a POST to `mcp.endpoint` (the route registered at that URL) has its body
// read in `preParsing` (at most `mcp.max_body_bytes`: 413; not JSON: 400 with JSON-RPC's parse
// error), handed on to Fastify's own JSON parser unchanged, and its messages judged by the engine
// in `preValidation`, once `request.body` is parsed and the route's own rule held (`onRequest`).

/** The gate that judges this request's body, or null. */
function gateOf(generation: Generation, request: FastifyRequest): McpGate | null {
  const { mcp } = generation;
  const url = request.routeOptions.url;
  return mcp !== null && url !== undefined && mcp.judges(request.method, url) ? mcp : null;
}

/** Adds the two hooks; `current` is the serving generation. */
export function addMcpHooks(app: FastifyInstance, current: () => Generation, logger: Logger): void {
  app.addHook('preParsing', (request, reply, payload, done) => {
    const gate = gateOf(current(), request);
    if (gate === null) return done(null, payload);
    if (Number(request.headers['content-length']) > gate.maxBodyBytes) return refuse(BODY_TOO_LARGE, request, reply);
    void readBoundedBody(payload, gate.maxBodyBytes).then((body) => {
      if (body === ABORTED) return;
      if (body === null) return refuse(BODY_TOO_LARGE, request, reply);
      try {
        JSON.parse(body.toString('utf8'));
      } catch {
        return refuse(NOT_JSON, request, reply);
      }
      done(null, Readable.from([body]));
    });
  });

  app.addHook('preValidation', (request, reply, done) => {
    const gate = gateOf(current(), request);
    if (gate === null) return done();
    let verdict: ReturnType<McpGate['judge']>;
    try {
      verdict = gate.judge(request.body, request.raw, request.auth, scopeOf(request) ?? newScope(request));
    } catch (error) {
      // Only an onDecision listener throws here.
      return failed(logger, error, reply);
    }
    if (verdict.pass) return done();
    refuse(verdict.answer, request, reply);
  });
}
