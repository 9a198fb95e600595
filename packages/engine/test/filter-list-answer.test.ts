import { afterEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { filterListAnswer } from '../src/mcp/filter-list-answer.js';

// filterListAnswer on a real Node response, read by a real HTTP client: whatever way the MCP server
// writes its answer (writeHead with headers, setHeader then write, one chunk or many, JSON or SSE),
// the list arrives filtered and its length is the filtered body's.

/** Drops every tool whose name starts with `secret`; leaves other messages as they are. */
const rewrite = (message: unknown): unknown => {
  const result = (message as { result?: { tools?: { name: string }[] } }).result;
  if (result?.tools === undefined) return message;
  return { ...(message as object), result: { tools: result.tools.filter((tool) => !tool.name.startsWith('secret')) } };
};
const listed = (id: number) => ({ jsonrpc: '2.0', id, result: { tools: [{ name: 'open' }, { name: 'secret_x' }] } });
const filtered = (id: number) => ({ jsonrpc: '2.0', id, result: { tools: [{ name: 'open' }] } });

let server: Server | null = null;
afterEach(async () => {
  server?.close();
  server = null;
});

/** Serves one answer written by `write` on a response filterListAnswer wrapped; resolves with its URL. */
async function serving(write: (res: ServerResponse) => void): Promise<string> {
  server = createServer((_req, res) => {
    filterListAnswer(res, rewrite);
    write(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

async function fetchText(url: string): Promise<{ res: IncomingMessage; body: string }> {
  const req = request(url);
  req.end();
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk as string;
  return { res, body };
}

/** The body must be exactly as long as any Content-Length the client was sent. */
function expectLengthOf(res: IncomingMessage, body: string): void {
  const length = res.headers['content-length'];
  if (length !== undefined) expect(Number(length)).toBe(Buffer.byteLength(body));
}

describe('filterListAnswer: a JSON answer', () => {
  it('writeHead with Content-Type and the old Content-Length, then end(body): filtered, length dropped', async () => {
    const body = JSON.stringify(listed(1));
    const url = await serving((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(body.length) });
      res.end(body);
    });
    const { res, body: got } = await fetchText(url);
    expect(JSON.parse(got)).toEqual(filtered(1));
    expectLengthOf(res, got);
  });

  it('setHeader, then the body in Buffer chunks, then end(): read whole and filtered', async () => {
    const body = Buffer.from(JSON.stringify(listed(2)));
    const url = await serving((res) => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('content-length', body.length);
      res.write(body.subarray(0, 10));
      res.write(new Uint8Array(body.subarray(10)));
      res.end();
    });
    const { res, body: got } = await fetchText(url);
    expect(JSON.parse(got)).toEqual(filtered(2));
    expectLengthOf(res, got);
  });

  it('a batch: each message rewritten; writeHead with a status message and no headers', async () => {
    const url = await serving((res) => {
      res.setHeader('Content-Type', 'application/json');
      res.writeHead(200, 'OK');
      res.end(JSON.stringify([listed(3), { jsonrpc: '2.0', id: 4, result: {} }]));
    });
    const { body } = await fetchText(url);
    expect(JSON.parse(body)).toEqual([filtered(3), { jsonrpc: '2.0', id: 4, result: {} }]);
  });

  it('a body that is not JSON passes as it is', async () => {
    const url = await serving((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{not json');
    });
    expect((await fetchText(url)).body).toBe('{not json');
  });
});

describe('filterListAnswer: an SSE answer', () => {
  it('rewrites each data line event by event, an event split across writes included', async () => {
    const event = `event: message\ndata: ${JSON.stringify(listed(5))}\n\n`;
    const url = await serving((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(event.slice(0, 20));
      res.write(event.slice(20) + ': a comment\ndata: not json\n\n');
      res.end(`data:${JSON.stringify(listed(6))}\n\n`);
    });
    const { body } = await fetchText(url);
    expect(body).toBe(
      `event: message\ndata: ${JSON.stringify(filtered(5))}\n\n` +
        ': a comment\ndata: not json\n\n' +
        `data: ${JSON.stringify(filtered(6))}\n\n`,
    );
  });

  it('sends a whole event before the answer ends (a held stream is not buffered)', async () => {
    let more: (() => void) | null = null;
    const url = await serving((res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(listed(7))}\n\n`);
      more = () => res.end();
    });
    const req = request(url);
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    res.setEncoding('utf8');
    const [first] = (await once(res, 'data')) as [string];
    expect(first).toBe(`data: ${JSON.stringify(filtered(7))}\n\n`);
    more!();
    await once(res, 'end');
  });
});

describe('filterListAnswer: any other answer', () => {
  it('passes as it is, its Content-Length kept', async () => {
    const body = JSON.stringify(listed(8));
    const url = await serving((res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('Content-Length', body.length);
      res.write(body.slice(0, 5));
      res.end(body.slice(5));
    });
    const { res, body: got } = await fetchText(url);
    expect(got).toBe(body);
    expect(res.headers['content-length']).toBe(String(body.length));
  });

  it('an answer with no Content-Type written by end() alone passes as it is', async () => {
    const url = await serving((res) => {
      res.statusCode = 202;
      res.end();
    });
    const { res, body } = await fetchText(url);
    expect([res.statusCode, body]).toEqual([202, '']);
  });
});
