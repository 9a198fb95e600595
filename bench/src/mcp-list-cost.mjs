// What `mcp.filter_lists` costs one `tools/list` of 100 tools, in one process without HTTP: the
// Express middleware (`auth.access`) judges the POSTed `tools/list` (its body already parsed, as a
// parser before it leaves it), then the answer the MCP server would write (JSON, or one SSE event)
// goes through the response, with `filter_lists: true` (read whole, filtered by the same keys,
// written again) and `false` (passed through), in alternating rounds (median of 9 rounds of CALLS
// lists each). Also, for scale: JSON.parse + JSON.stringify of the same answer alone.
//
//   pnpm --filter @authlayer/bench mcp-list-cost        (after a build)
import express from 'express';
import { createAuthMiddleware } from '@authlayer/express';

const CALLS = Number(process.env.CALLS ?? 20_000);
const ROUNDS = 9;
const KEY = 'bench-mcp-lists-key-0123456789';
const logger = { info() {}, warn() {}, error() {}, debug() {} };

// 100 tools as the SDK lists them (name, description, an input schema), 25 of each family, the
// other rows named exactly. The caller holds no role and no scope: of 100, 55 are listed (25 of
// them with the scopes they need in _meta), 45 are left out.
const FAMILIES = ['read', 'admin', 'report', 'misc'];
const TOOLS = FAMILIES.flatMap((family) =>
  Array.from({ length: 25 }, (_, i) => ({
    name: `${family}_${String(i).padStart(2, '0')}`,
    description: `The ${family} tool number ${i}, which does one thing with a path`,
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, mode: { type: 'string', enum: ['read', 'write'] } },
      required: ['path'],
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
    },
  })),
);
const ACCESS = {
  'POST /mcp': 'authenticated',
  'MCP tools/call read_*': 'authenticated',
  'MCP tools/call admin_*': { roles: ['admin'] },
  'MCP tools/call report_*': { scopes: ['reports:read'] },
  // Twenty exact keys, as a table that names its tools one by one has: five allowed, fifteen not.
  ...Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [
      `MCP tools/call misc_${String(i).padStart(2, '0')}`,
      i < 5 ? 'authenticated' : { roles: ['ops'] },
    ]),
  ),
  'MCP tools/call *': 'deny',
};
const config = (filterLists) => ({
  auth: { mode: 'api_key', api_keys: { keys: [{ name: 'bench', env_var: 'BENCH_API_KEY' }] } },
  mcp: { endpoint: '/mcp', filter_lists: filterLists },
  access: ACCESS,
});

const LIST = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
const ANSWER = JSON.stringify({ jsonrpc: '2.0', id: 7, result: { tools: TOOLS } });
const ANSWERS = {
  json: { type: 'application/json', body: ANSWER },
  sse: { type: 'text/event-stream', body: `event: message\ndata: ${ANSWER}\n\n` },
};

/** An Express request for the POSTed list, its body parsed (Express's own prototype). */
function listRequest() {
  const headers = {
    host: '127.0.0.1',
    'x-api-key': KEY,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const req = Object.create(express.request);
  Object.assign(req, {
    method: 'POST',
    url: '/mcp',
    originalUrl: '/mcp',
    headers,
    rawHeaders: Object.entries(headers).flat(),
    socket: { remoteAddress: '127.0.0.1' },
    complete: true,
    body: LIST,
  });
  return req;
}

/** A response that keeps what is written (its length), with the methods the filter wraps. */
function response(sink) {
  const headers = new Map();
  return {
    locals: {},
    headersSent: false,
    setHeader: (name, value) => void headers.set(name.toLowerCase(), value),
    getHeader: (name) => headers.get(name.toLowerCase()),
    removeHeader: (name) => void headers.delete(name.toLowerCase()),
    on() {},
    once() {},
    writeHead(_status, more) {
      for (const [name, value] of Object.entries(more ?? {})) headers.set(name.toLowerCase(), value);
      return this;
    },
    write: (chunk) => (sink.take(chunk), true),
    end(chunk) {
      if (chunk !== undefined) sink.take(chunk);
      return this;
    },
  };
}

/** One list: the middleware judges it, then the server writes its answer through the response. */
async function listerOf(filterLists, answer) {
  const auth = await createAuthMiddleware(config(filterLists), { env: { BENCH_API_KEY: KEY }, logger });
  const req = listRequest();
  // The first answer is kept whole, to check what the filter left; later ones are only counted.
  const sink = { bytes: 0, text: '', take: (chunk) => void (sink.text += chunk) };
  let passed = 0;
  const next = (error) => {
    if (error !== undefined) throw error;
    passed += 1;
  };
  const once = () => {
    const res = response(sink);
    auth.access(req, res, next);
    res.writeHead(200, { 'content-type': answer.type, 'content-length': String(answer.body.length) });
    res.end(answer.body);
  };
  once();
  if (passed !== 1) throw new Error('the list was not judged in the same turn: this bench measures the sync path');
  const listed = JSON.parse(sink.text.replace(/^event: message\ndata: /, '')).result.tools;
  sink.take = () => undefined;
  return {
    auth,
    once,
    bytes: sink.text.length,
    listed: listed.length,
    withScopes: listed.filter((t) => t._meta).length,
  };
}

function nsPerCall(run) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) run();
  return Number(process.hrtime.bigint() - start) / CALLS;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const rows = {};
for (const [kind, answer] of Object.entries(ANSWERS)) {
  const filtered = await listerOf(true, answer);
  const passThrough = await listerOf(false, answer);
  const times = { filtered: [], pass_through: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    times.filtered.push(nsPerCall(filtered.once));
    times.pass_through.push(nsPerCall(passThrough.once));
  }
  rows[kind] = {
    filtered_ns: Math.round(median(times.filtered)),
    pass_through_ns: Math.round(median(times.pass_through)),
    filter_cost_ns: Math.round(median(times.filtered.map((value, i) => value - times.pass_through[i]))),
    answer_bytes: { written_by_server: answer.body.length, after_filter: filtered.bytes, passed: passThrough.bytes },
    listed: { filtered: filtered.listed, with_scopes_in_meta: filtered.withScopes, passed: passThrough.listed },
  };
  await filtered.auth.close();
  await passThrough.auth.close();
}
const parseAndStringify = [];
for (let round = 0; round < ROUNDS; round += 1)
  parseAndStringify.push(nsPerCall(() => JSON.stringify(JSON.parse(ANSWER))));
console.log(
  JSON.stringify(
    {
      node: process.version,
      calls_per_round: CALLS,
      rounds: ROUNDS,
      tools: TOOLS.length,
      ...rows,
      json_parse_and_stringify_of_the_answer_ns: Math.round(median(parseAndStringify)),
    },
    null,
    2,
  ),
);
