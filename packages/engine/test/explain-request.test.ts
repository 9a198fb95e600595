import { afterEach, describe, expect, it } from '@jest/globals';
import type { Engine } from '../src/engine.js';
import { matchEntries } from '../src/access/access-table.js';
import { explainRequest } from '../src/policy/explain-request.js';
import type { EngineRequest } from '../src/request/decide.js';
import { KEYS, engineAt, requestTo } from './support/engine-at.js';

// `auth.explain(req)` as an adapter calls it: a real engine (API keys, a pinned clock), the
// table's own match and plan, the request's real credentials. It tells what the table makes of
// the request, key by key, and reports nothing.

const TABLE = {
  'GET /status': 'public',
  'GET /admin': 'deny',
  'GET /reports/:id': { roles: ['auditor'] },
  'POST /invoke': { permissions: ['invoke'] },
  'POST /mcp': 'authenticated',
  'MCP tools/call delete_*': { roles: ['admin'] },
};
const opened: Engine[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((engine) => engine.close()));
});

async function explainerOf(config: Record<string, unknown> = {}) {
  const made = await engineAt({ access: TABLE, mcp: { endpoint: '/mcp' }, ...config });
  opened.push(made.engine);
  /** What Express's `auth.explain(req)` asks of the engine for `request` and its parsed body. */
  const explain = (request: EngineRequest, body?: unknown) => {
    const generation = made.engine.current();
    const path = (request.url ?? '/').split('?')[0]!;
    return explainRequest(generation, {
      method: request.method,
      path,
      request,
      matched: matchEntries(generation.table, request.method, path),
      plan: generation.plan(request.method, path, request),
      body,
    });
  };
  return { ...made, explain };
}

const as = (key: string) => ({ 'x-api-key': key });
const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });

describe('explainRequest', () => {
  it('a public route goes on without asking for a caller', async () => {
    const { explain, decisions } = await explainerOf();
    const verdict = await explain(requestTo('GET', '/status'));
    expect(verdict).toEqual({
      status: 200,
      reason: null,
      challenge: null,
      key: null,
      wouldRefuse: null,
      trace: [{ key: 'GET /status', verdict: 'allow', field: 'public', reason: null }],
    });
    expect(decisions).toEqual([]);
  });

  it('a denied route is refused, and the caller is still verified for the trace', async () => {
    const { explain } = await explainerOf();
    const verdict = await explain(requestTo('GET', '/admin', as(KEYS.admin)));
    expect(verdict).toMatchObject({ status: 403, reason: 'route_denied', key: 'GET /admin' });
    expect(verdict.trace).toEqual([{ key: 'GET /admin', verdict: 'refuse', field: 'deny', reason: 'route_denied' }]);
  });

  it('a denied route with a wrong key: the caller is nobody, not a crash', async () => {
    const { explain } = await explainerOf();
    const verdict = await explain(requestTo('GET', '/admin', as('not-a-key-0123456789abcdef')));
    expect(verdict).toMatchObject({ status: 403, reason: 'route_denied' });
    expect(verdict.trace).toEqual([{ key: 'GET /admin', verdict: 'refuse', field: 'deny', reason: 'route_denied' }]);
  });

  it('a rule the caller holds goes on; one it lacks is refused with the key and field that decided', async () => {
    const { explain, decisions } = await explainerOf();
    const held = await explain(requestTo('GET', '/reports/7', as(KEYS.auditor)));
    expect(held).toMatchObject({ status: 200, reason: null, key: null, challenge: null });
    expect(held.trace).toEqual([{ key: 'GET /reports/:id', verdict: 'allow', field: 'roles', reason: null }]);
    const lacked = await explain(requestTo('GET', '/reports/7', as(KEYS.plain)));
    expect(lacked).toMatchObject({ status: 403, reason: 'role_missing', key: 'GET /reports/:id' });
    expect(lacked.trace).toEqual([
      { key: 'GET /reports/:id', verdict: 'refuse', field: 'roles', reason: 'role_missing' },
    ]);
    expect(decisions).toEqual([]);
  });

  it('no credential: a 401 with the challenge the request would meet', async () => {
    const { explain } = await explainerOf();
    const verdict = await explain(requestTo('POST', '/invoke'));
    expect(verdict).toMatchObject({ status: 401, reason: 'credentials_missing', key: 'POST /invoke' });
    expect(verdict.challenge).toEqual(expect.any(String));
    expect(verdict.trace).toEqual([
      { key: 'POST /invoke', verdict: 'refuse', field: 'authentication', reason: 'credentials_missing' },
    ]);
  });

  it('a path no key matches is traced by the default', async () => {
    const { explain } = await explainerOf();
    const verdict = await explain(requestTo('GET', '/elsewhere', as(KEYS.plain)));
    expect(verdict).toMatchObject({ status: 200 });
    expect(verdict.trace).toEqual([{ key: 'default', verdict: 'allow', field: 'default', reason: null }]);
  });

  it('judges the MCP messages of a POST to the endpoint, and traces their keys', async () => {
    const { explain, decisions } = await explainerOf();
    const post = (key: string) => requestTo('POST', '/mcp', { ...as(key), 'content-type': 'application/json' });
    const refused = await explain(post(KEYS.plain), call('delete_user'));
    expect(refused).toMatchObject({ status: 403, reason: 'role_missing', key: 'MCP tools/call delete_*' });
    expect(refused.trace).toEqual([
      { key: 'POST /mcp', verdict: 'allow', field: 'authenticated', reason: null },
      { key: 'MCP tools/call delete_*', verdict: 'refuse', field: 'roles', reason: 'role_missing' },
    ]);
    const allowed = await explain(post(KEYS.admin), call('delete_user'));
    expect(allowed).toMatchObject({ status: 200, reason: null });
    expect(allowed.trace[1]).toEqual({
      key: 'MCP tools/call delete_*',
      verdict: 'allow',
      field: 'roles',
      reason: null,
    });
    expect(decisions).toEqual([]);
  });

  it('a body that is not MCP, or a body on another path, adds no message', async () => {
    const { explain } = await explainerOf();
    const other = await explain(requestTo('POST', '/invoke', as(KEYS.admin)), call('delete_user'));
    expect(other).toMatchObject({ status: 200 });
    expect(other.trace).toHaveLength(1);
    const notMcp = await explain(requestTo('POST', '/mcp', as(KEYS.plain)), { hello: 'world' });
    expect(notMcp.trace).toHaveLength(1);
  });

  it('without an mcp section, a body is only a body', async () => {
    const { explain } = await explainerOf({ mcp: undefined, access: { 'POST /mcp': 'authenticated' } });
    const verdict = await explain(requestTo('POST', '/mcp', as(KEYS.plain)), call('delete_user'));
    expect(verdict).toMatchObject({ status: 200 });
    expect(verdict.trace).toHaveLength(1);
  });

  it('report_only: the request goes on, and what would be refused is named', async () => {
    const { explain, decisions } = await explainerOf({ access: { ...TABLE, report_only: true } });
    const verdict = await explain(requestTo('GET', '/reports/7', as(KEYS.plain)));
    expect(verdict).toMatchObject({
      status: 200,
      reason: null,
      wouldRefuse: { reason: 'role_missing', key: 'GET /reports/:id' },
    });
    expect(decisions).toEqual([]);
  });

  it('counts no rate limit: explaining many times never meets a 429', async () => {
    const { explain } = await explainerOf({ rate_limit: { requests_per_minute: 1 } });
    const verdicts = [];
    for (let i = 0; i < 3; i += 1) verdicts.push(await explain(requestTo('GET', '/reports/7', as(KEYS.auditor))));
    expect(verdicts.map((verdict) => verdict.status)).toEqual([200, 200, 200]);
  });
});
