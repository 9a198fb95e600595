import type { MessageRewrite } from '@authlayer/engine/internal';

// `mcp.filter_lists` on a web `Response`: the answer the MCP server returned (the SDK's
// `WebStandardStreamableHTTPServerTransport`, or any handler) has its list result rewritten as the
// Node adapters rewrite what is written on Node's response (the engine's `filterListAnswer`).

/** One JSON text rewritten (an array message by message); text that is not JSON as it is. */
function rewriteJson(text: string, rewrite: MessageRewrite): string {
  try {
    const value: unknown = JSON.parse(text);
    return JSON.stringify(Array.isArray(value) ? value.map(rewrite) : rewrite(value));
  } catch {
    return text;
  }
}

/** Server-sent events, every `data:` line that holds a JSON message rewritten. */
function rewriteEvents(events: string, rewrite: MessageRewrite): string {
  return events.replace(/^data: ?(.*)$/gm, (line, data: string) => {
    try {
      return `data: ${JSON.stringify(rewrite(JSON.parse(data)))}`;
    } catch {
      return line;
    }
  });
}

/** An SSE body rewritten event by event as it streams (an event ends at a blank line). */
function eventStream(body: ReadableStream<Uint8Array>, rewrite: MessageRewrite): ReadableStream<Uint8Array> {
  let buffered = '';
  const encoder = new TextEncoder();
  const rewriting = new TransformStream<string, Uint8Array>({
    transform(chunk, controller) {
      buffered += chunk;
      const cut = buffered.lastIndexOf('\n\n') + 2;
      if (cut < 2) return;
      controller.enqueue(encoder.encode(rewriteEvents(buffered.slice(0, cut), rewrite)));
      buffered = buffered.slice(cut);
    },
    flush(controller) {
      if (buffered !== '') controller.enqueue(encoder.encode(rewriteEvents(buffered, rewrite)));
    },
  });
  return body.pipeThrough(new TextDecoderStream()).pipeThrough(rewriting);
}

/**
 * The answer to a list request with only what the caller may call: a JSON answer read whole and
 * made again, an SSE answer rewritten event by event; any other answer as it is. The length the
 * server set is dropped (the body's length changes).
 */
export async function filterListResponse(response: Response, rewrite: MessageRewrite): Promise<Response> {
  const type = response.headers.get('content-type') ?? '';
  const json = /^application\/json/i.test(type);
  if (response.body === null || (!json && !/^text\/event-stream/i.test(type))) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const body = json ? rewriteJson(await response.text(), rewrite) : eventStream(response.body, rewrite);
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
