import type { ServerResponse } from 'node:http';

// The seam of `mcp.filter_lists`: the answer as the MCP server writes it on Node's response (an
// Express `res`, Fastify's `reply.raw`), whichever server or transport writes it. See
// docs/design/mcp-lists.md for why here and not in the SDK's request handlers.

/** Rewrites one JSON-RPC message of the answer (the list's result filtered); others as they are. */
export type MessageRewrite = (message: unknown) => unknown;

/**
 * Wraps `res` so that the answer to a list request is rewritten as it is written: a JSON answer
 * (`application/json`) read whole and written again; an SSE answer (`text/event-stream`) event by
 * event, each `data:` that is a JSON message rewritten. Any other answer passes as it is. The
 * `Content-Length` the server set is dropped (the body's length changes).
 */
export function filterListAnswer(res: ServerResponse, rewrite: MessageRewrite): void {
  let kind: 'json' | 'sse' | 'other' | null = null;
  let buffered = '';
  const write = res.write.bind(res) as (chunk: string) => boolean;
  const end = res.end.bind(res) as (chunk?: string) => ServerResponse;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  const kindOf = (type: unknown) =>
    /^application\/json/i.test(String(type)) ? 'json' : /^text\/event-stream/i.test(String(type)) ? 'sse' : 'other';
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const headers = rest.find((part) => typeof part === 'object' && part !== null && !Array.isArray(part)) as
      Record<string, unknown> | undefined;
    const type = headers === undefined ? res.getHeader('content-type') : typeOf(headers, res);
    kind = kindOf(type);
    if (kind !== 'other') {
      res.removeHeader('content-length');
      if (headers !== undefined) for (const name of Object.keys(headers)) dropLength(headers, name);
    }
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    kind ??= kindOf(res.getHeader('content-type'));
    if (kind === 'other') return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    buffered += textOf(chunk);
    if (kind === 'sse') return flushEvents(false);
    return true;
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    kind ??= kindOf(res.getHeader('content-type'));
    if (kind === 'other') return (end as (...args: unknown[]) => ServerResponse)(chunk, ...rest);
    if (chunk !== undefined && typeof chunk !== 'function') buffered += textOf(chunk);
    if (kind === 'sse') {
      flushEvents(true);
      return end();
    }
    return end(rewriteJson(buffered, rewrite));
  }) as typeof res.end;

  function flushEvents(last: boolean): boolean {
    const cut = last ? buffered.length : buffered.lastIndexOf('\n\n') + 2;
    if (cut < 2 && !last) return true;
    const events = buffered.slice(0, cut);
    buffered = buffered.slice(cut);
    return events === ''
      ? true
      : write(events.replace(/^data: ?(.*)$/gm, (line, data: string) => dataLine(data, line)));
  }

  function dataLine(data: string, line: string): string {
    try {
      return `data: ${JSON.stringify(rewrite(JSON.parse(data)))}`;
    } catch {
      return line;
    }
  }
}

function typeOf(headers: Record<string, unknown>, res: ServerResponse): unknown {
  const name = Object.keys(headers).find((key) => key.toLowerCase() === 'content-type');
  return name === undefined ? res.getHeader('content-type') : headers[name];
}

function dropLength(headers: Record<string, unknown>, name: string): void {
  if (name.toLowerCase() === 'content-length') delete headers[name];
}

function textOf(chunk: unknown): string {
  if (typeof chunk === 'string') return chunk;
  return chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : '';
}

function rewriteJson(body: string, rewrite: MessageRewrite): string {
  try {
    const value: unknown = JSON.parse(body);
    return JSON.stringify(Array.isArray(value) ? value.map(rewrite) : rewrite(value));
  } catch {
    return body;
  }
}
