import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';

/** What a probe of the MCP endpoint saw: the status, the challenge and the JSON-RPC answer. */
export interface Probed {
  readonly status: number;
  readonly challenge: string | null;
  /** The JSON body, or the one `data:` message of a server-sent event stream; `null` for none. */
  readonly body: unknown;
}

/** The headers the conformance suite's probes send (a Streamable HTTP client's). */
const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'content-type': 'application/json',
  'mcp-protocol-version': '2025-06-18',
};

/** A JSON-RPC request. */
export const rpc = (method: string, params: Record<string, unknown> = {}, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

/** MCP's `initialize`, the probe of the suite's audience scenario. */
export const INITIALIZE = rpc('initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'authlayer-conformance', version: '1.0.0' },
});

function parseBody(text: string, type: string | null): unknown {
  if (text === '') return null;
  if (type?.startsWith('text/event-stream') === true) {
    const data = text.split('\n').find((line) => line.startsWith('data: '));
    return data === undefined ? null : JSON.parse(data.slice('data: '.length));
  }
  return JSON.parse(text);
}

/**
 * POSTs `body` (serialised unless a string) to `url` as an MCP client would, with `headers` on
 * top; a header given a list is sent as that many header lines (two `DPoP` headers).
 */
export async function probe(
  url: string,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): Promise<Probed> {
  const req = request(url, { method: 'POST', headers: { ...MCP_HEADERS, ...headers } });
  req.end(typeof body === 'string' ? body : JSON.stringify(body));
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let text = '';
  for await (const chunk of res) text += (chunk as Buffer).toString();
  return {
    status: res.statusCode ?? 0,
    challenge: res.headers['www-authenticate'] ?? null,
    body: parseBody(text, res.headers['content-type'] ?? null),
  };
}

/** The auth-params of a challenge (`scheme k="v", ...`), names in lower case, and its scheme. */
export function parseChallenge(header: string | null): { scheme: string; params: Record<string, string> } {
  const [scheme = '', ...rest] = (header ?? '').split(' ');
  const params: Record<string, string> = {};
  for (const [, name, value] of rest.join(' ').matchAll(/([\w-]+)="((?:[^"\\]|\\.)*)"/g)) {
    params[name!.toLowerCase()] = value!;
  }
  return { scheme, params };
}
