import type { Logger } from '@authlayer/core';
import { BODY_TOO_LARGE, NOT_JSON, type Generation, type McpGate } from '@authlayer/engine/internal';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { failed, refuse } from './reply.js';
import { newScope, scopeOf } from './scope.js';

// MCP servers on Fastify: a POST to `mcp.endpoint` (the route registered at that URL) has its body
// read in `preParsing` (at most `mcp.max_body_bytes`: 413; not JSON: 400 with JSON-RPC's parse
// error), handed on to Fastify's own JSON parser unchanged, and its messages judged by the engine
// in `preValidation`, once `request.body` is parsed and the route's own rule held (`onRequest`).

/** The client went away before the body's end. */
const ABORTED = Symbol('aborted');

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
    void readBody(payload, gate.maxBodyBytes).then((body) => {
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

/** The body, or `null` once it grows past `limit` (then it is read no further), or `ABORTED`. */
function readBody(stream: NodeJS.ReadableStream, limit: number): Promise<Buffer | null | typeof ABORTED> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        return resolve(null);
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onGone = () => {
      cleanup();
      resolve(ABORTED);
    };
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onGone);
      stream.off('close', onGone);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onGone);
    stream.on('close', onGone);
  });
}
