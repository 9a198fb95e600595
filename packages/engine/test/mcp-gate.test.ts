import { afterEach, describe, expect, it } from '@jest/globals';
import { createAuthContext, type AuthContext } from '@authlayer/core';
import { Readable } from 'node:stream';
import type { Engine } from '../src/engine.js';
import { ABORTED, readBoundedBody } from '../src/mcp/read-body.js';
import { BATCH_REFUSED, UNSCOPABLE, type McpGate, type McpVerdict } from '../src/mcp/mcp-gate.js';
import { RequestScope } from '../src/request/scope.js';
import { KEYS, engineAt, judge, requestTo } from './support/engine-at.js';

// The MCP gate without HTTP: a real engine's gate judges parsed bodies for a caller the test
// gives, and reports its refusals as the request's one decision.

const TABLE = {
  'POST /mcp': { scopes: ['mcp'] },
  'MCP tools/call delete_*': { roles: ['admin'] },
  'MCP tools/call read_report': { scopes: ['reports:read'] },
  'MCP tools/call sudo': { acr: ['urn:mfa'] },
  'MCP resources/read files://{tenant}/{path}': { scopes: ['files:{tenant}:read'] },
};
const opened: Engine[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((engine) => engine.close()));
});

async function gateOf(mcp: object = {}, access: object = TABLE) {
  const made = await engineAt({ mcp: { endpoint: '/mcp', ...mcp }, access });
  opened.push(made.engine);
  return { ...made, gate: made.engine.current().mcp as McpGate };
}

const caller = (scopes: string[], roles: string[] = []): AuthContext =>
  createAuthContext({ method: 'jwt', userId: 'u-1', scopes, roles });
const call = (name: string, args: object = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});
/** The WWW-Authenticate of a refusal. */
const challengeOf = (verdict: McpVerdict) =>
  verdict.pass ? null : verdict.answer.headers.find(([name]) => name === 'WWW-Authenticate')?.[1];
const bearer = (headers: Record<string, string> = {}) =>
  requestTo('POST', '/mcp', { authorization: 'Bearer t', host: 'localhost', ...headers });

describe('the MCP gate', () => {
  it('covers the endpoint and every path below it; judges only a POST there', async () => {
    const { gate } = await gateOf();
    expect([gate.covers('/mcp'), gate.covers('/mcp/x'), gate.covers('/MCP/'), gate.covers('/mcpx')]).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect([gate.judges('POST', '/mcp'), gate.judges('GET', '/mcp'), gate.judges('POST', '/other')]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('lets a message its keys allow through, and reports nothing of its own', async () => {
    const { gate, decisions } = await gateOf();
    const verdict = gate.judge(call('read_report'), bearer(), caller(['reports:read']), new RequestScope(() => null));
    expect(verdict).toEqual({ pass: true });
    expect(decisions).toEqual([]);
  });

  it('refuses a batch whole, and judges each message of one with batches: judge', async () => {
    const refusing = await gateOf();
    const scope = new RequestScope(() => null);
    expect(refusing.gate.judge([call('read_report')], bearer(), caller(['reports:read']), scope)).toBe(BATCH_REFUSED);
    const judging = await gateOf({ batches: 'judge' });
    const batch = [call('read_report'), call('delete_all')];
    expect(judging.gate.judge(batch, bearer(), caller(['reports:read']), scope)).toMatchObject({
      pass: false,
      answer: { status: 403, code: 'forbidden' },
    });
  });

  it('answers 400 when Mcp-Method or Mcp-Name says another thing than the body', async () => {
    const { gate } = await gateOf();
    const scope = new RequestScope(() => null);
    const context = caller(['reports:read']);
    expect(gate.judge(call('read_report'), bearer({ 'mcp-method': 'tools/list' }), context, scope)).toMatchObject({
      pass: false,
      answer: { status: 400, message: 'the Mcp-Method header does not match the body' },
    });
    expect(gate.judge(call('read_report'), bearer({ 'mcp-name': 'other' }), context, scope)).toMatchObject({
      answer: { status: 400, message: 'the Mcp-Name header does not match the body' },
    });
  });

  it("a key's 403 is the request's decision, under the MCP key, with no challenge but for scopes", async () => {
    const { gate, decisions } = await gateOf();
    const verdict = gate.judge(call('delete_all'), bearer(), caller([]), new RequestScope(() => 'r-2'));
    expect(verdict).toMatchObject({ pass: false, answer: { status: 403, headers: [] } });
    expect(decisions).toMatchObject([
      {
        outcome: 'forbidden',
        reason: 'role_missing',
        rule: 'MCP tools/call delete_*',
        userId: 'u-1',
        requestId: 'r-2',
      },
    ]);
  });

  it("for want of scopes: the challenge names the route's scopes and the message's", async () => {
    const { gate, engine, decisions } = await gateOf();
    const scope = new RequestScope(() => null);
    // What the table's step leaves in the scope for `POST /mcp` (its rule's scope, `mcp`).
    scope.plan = engine.current().plan('POST', '/mcp', { method: 'POST', headers: {} });
    const verdict = gate.judge(call('read_report'), bearer(), caller(['mcp']), scope);
    expect(verdict).toMatchObject({ pass: false, answer: { status: 403 } });
    const challenge = challengeOf(verdict);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="mcp reports:read"');
    expect(decisions).toMatchObject([{ outcome: 'forbidden', reason: 'scope_missing' }]);
  });

  it("challenge_scopes: token_and_required puts the token's own scopes first", async () => {
    const { gate } = await gateOf({ challenge_scopes: 'token_and_required' });
    const verdict = gate.judge(
      call('read_report'),
      bearer(),
      caller(['other', 'offline_access']),
      new RequestScope(() => null),
    );
    const challenge = challengeOf(verdict);
    expect(challenge).toContain('scope="other reports:read"');
  });

  it("a step-up's 401 names its caller; an anonymous caller's 401 names nobody", async () => {
    const { gate, decisions } = await gateOf();
    const stepped = gate.judge(call('sudo'), bearer(), caller([]), new RequestScope(() => null));
    expect(stepped).toMatchObject({ pass: false, answer: { status: 401 } });
    const anonymous = gate.judge(call('delete_all'), bearer(), undefined, new RequestScope(() => null));
    expect(anonymous).toMatchObject({ pass: false, answer: { status: 401 } });
    expect(decisions.map((d) => [d.outcome, d.reason, d.userId])).toEqual([
      ['refused', 'step_up_required', 'u-1'],
      ['refused', 'credentials_missing', null],
    ]);
  });

  it('a template value that cannot form its scope is a 400', async () => {
    const { gate } = await gateOf();
    const read = { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'files://a"b/x' } };
    expect(gate.judge(read, bearer(), caller([]), new RequestScope(() => null))).toBe(UNSCOPABLE);
  });

  it('replaces the held decision of the route with its refusal', async () => {
    const { gate, engine, decisions } = await gateOf({}, { ...TABLE, 'POST /mcp': 'authenticated' });
    const { scope, outcome } = await judge(engine.current(), requestTo('POST', '/mcp', { 'x-api-key': KEYS.admin }));
    expect(outcome?.pass).toBe(true);
    expect(scope.holding).toBe(true);
    gate.judge(call('read_report'), bearer(), caller([]), scope);
    expect(decisions.map((d) => [d.outcome, d.rule])).toEqual([['forbidden', 'MCP tools/call read_report']]);
  });

  it('report_only: a refusal becomes would_refuse on the held decision, and the message goes on', async () => {
    const { gate, engine, decisions } = await gateOf({}, { ...TABLE, 'POST /mcp': 'authenticated', report_only: true });
    const { scope } = await judge(engine.current(), requestTo('POST', '/mcp', { 'x-api-key': KEYS.admin }));
    expect(gate.judge(call('read_report'), bearer(), caller([]), scope)).toEqual({ pass: true });
    scope.answered();
    expect(decisions.map((d) => [d.outcome, d.reason, d.rule])).toEqual([
      ['would_refuse', 'scope_missing', 'MCP tools/call read_report'],
    ]);
  });

  it('refuses a foreign Host or Origin before anything else, as a decision naming the setting', async () => {
    const { gate, decisions } = await gateOf();
    const scope = () => new RequestScope(() => null);
    expect(gate.refuseForeign(requestTo('GET', '/mcp', { host: 'localhost:3000' }), scope())).toBeNull();
    expect(gate.refuseForeign(requestTo('GET', '/mcp', { host: 'evil.example' }), scope())).toMatchObject({
      status: 403,
    });
    const origin = { host: 'localhost', origin: 'https://evil.example' };
    expect(gate.refuseForeign(requestTo('GET', '/mcp', origin), scope())).toMatchObject({ status: 403 });
    expect(decisions.map((d) => [d.reason, d.rule])).toEqual([
      ['host_not_allowed', 'mcp.allowed_hosts'],
      ['origin_not_allowed', 'mcp.allowed_origins'],
    ]);
  });

  it('refuses a foreign Host the same with nobody listening for decisions', async () => {
    const made = await engineAt({ mcp: { endpoint: '/mcp' }, access: TABLE }, { onDecision: undefined });
    opened.push(made.engine);
    const answer = made.engine
      .current()
      .mcp!.refuseForeign(requestTo('GET', '/mcp', { host: 'evil.example' }), new RequestScope(() => null));
    expect(answer).toMatchObject({ status: 403, code: 'forbidden' });
    expect(made.decisions).toEqual([]);
  });

  it("report_only spares a step-up's 401 as would_refuse, never a missing credential", async () => {
    const { gate, engine, decisions } = await gateOf({}, { ...TABLE, 'POST /mcp': 'optional', report_only: true });
    const held = await judge(engine.current(), requestTo('POST', '/mcp', { 'x-api-key': KEYS.admin }));
    expect(gate.judge(call('sudo'), bearer(), caller([]), held.scope)).toEqual({ pass: true });
    held.scope.answered();
    const anonymous = gate.judge(call('delete_all'), bearer(), undefined, new RequestScope(() => null));
    expect(anonymous).toMatchObject({ pass: false, answer: { status: 401 } });
    expect(decisions.map((d) => [d.outcome, d.reason, d.rule])).toEqual([
      ['would_refuse', 'step_up_required', 'MCP tools/call sudo'],
      ['refused', 'credentials_missing', 'MCP tools/call delete_*'],
    ]);
  });

  it('a deny key refuses an anonymous caller of a public route: 403, naming nobody', async () => {
    const { gate, decisions } = await gateOf({}, { 'POST /mcp': 'public', 'MCP tools/call *': 'deny' });
    const verdict = gate.judge(call('anything'), requestTo('POST', '/mcp'), undefined, new RequestScope(() => null));
    expect(verdict).toMatchObject({ pass: false, answer: { status: 403, code: 'forbidden' } });
    expect(decisions.map((d) => [d.outcome, d.reason, d.userId, d.rule])).toEqual([
      ['forbidden', 'route_denied', null, 'MCP tools/call *'],
    ]);
  });
});

describe('readBoundedBody', () => {
  it('reads a body whole within the limit', async () => {
    const body = await readBoundedBody(Readable.from([Buffer.from('{"a":'), Buffer.from('1}')]), 100);
    expect(body?.toString()).toBe('{"a":1}');
  });

  it('stops at the limit: null, the stream paused', async () => {
    const stream = Readable.from([Buffer.alloc(60), Buffer.alloc(60)]);
    expect(await readBoundedBody(stream, 100)).toBeNull();
    expect(stream.isPaused()).toBe(true);
  });

  it('the client hung up: a stream destroyed already, or one that errs or closes before its end', async () => {
    const gone = new Readable({ read: () => undefined });
    gone.destroy();
    expect(await readBoundedBody(gone, 100)).toBe(ABORTED);
    const failing = new Readable({ read: () => undefined });
    const read = readBoundedBody(failing, 100);
    failing.destroy(new Error('reset'));
    expect(await read).toBe(ABORTED);
  });
});

describe('the MCP gate rewrites list answers (filter_lists)', () => {
  const list = (method = 'tools/list', id: unknown = 3) => ({ jsonrpc: '2.0', id, method });
  const tools = (id: unknown, names: string[]) => ({
    jsonrpc: '2.0',
    id,
    result: { tools: names.map((name) => ({ name })) },
  });

  it('keeps only the tools the caller may call, in the answer to the list it asked, and nothing else', async () => {
    const { gate } = await gateOf({ filter_lists: true });
    const rewrite = gate.listRewrite(list(), bearer(), caller(['reports:read']), new RequestScope(() => null))!;
    expect(rewrite).toEqual(expect.any(Function));
    const answer = rewrite(tools(3, ['read_report', 'delete_user', 'other'])) as ReturnType<typeof tools>;
    expect(answer.result.tools.map((tool) => tool.name)).toEqual(['read_report', 'other']);
    // Another message of the stream (a notification, another id) and an error pass as they are.
    const other = tools(4, ['delete_user']);
    expect(rewrite(other)).toBe(other);
    const failed = { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'internal' } };
    expect(rewrite(failed)).toBe(failed);
    expect(rewrite('ping')).toBe('ping');
    expect(rewrite(null)).toBeNull();
  });

  it('rewrites nothing without filter_lists, for a batch, a notification, or a method that is not a list', async () => {
    const scope = new RequestScope(() => null);
    const off = await gateOf();
    expect(off.gate.listRewrite(list(), bearer(), caller([]), scope)).toBeNull();
    const { gate } = await gateOf({ filter_lists: true });
    const judged = (body: unknown) => gate.listRewrite(body, bearer(), caller([]), scope);
    expect(judged([list()])).toBeNull();
    expect(judged(null)).toBeNull();
    expect(judged('tools/list')).toBeNull();
    expect(judged({ jsonrpc: '2.0', method: 'tools/list' })).toBeNull();
    expect(judged(list('tools/call'))).toBeNull();
    expect(judged({ jsonrpc: '2.0', id: 1, method: 7 })).toBeNull();
  });
});
