import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseYaml } from '@authlayer/core';
import { startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import { comparable, send, serveExpressMcp, serveHonoMcp, type McpApp, type Wire } from './support/mcp-apps.js';

// MCP servers on Hono: the official SDK's web-standard transport behind `app.use(auth)`, and the
// same server behind Express on the same config. Every request gets the same answer from both
// (status, WWW-Authenticate, content type, body) and makes the same decision.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const KEY = 'admin-key-0123456789abcdef';

const yaml = (idp: TestIdentityProvider) => `
auth:
  mode: [api_key, jwt]
  api_keys:
    keys: [{ name: admin, env_var: ADMIN_KEY, roles: [admin] }]
  jwt:
    jwks_url: ${idp.jwksUrl}
    issuer: ${idp.issuer}
    algorithms: [RS256]
resource:
  identifier: ${IDENTIFIER}
mcp:
  endpoint: /mcp
  max_body_bytes: 512
  filter_lists: true
access:
  "POST /mcp": authenticated
  "MCP tools/call get_forecast": { scopes: [weather:read] }
  "MCP tools/call admin_*": { roles: [admin] }
  "MCP tools/call report": { scopes: [reports:read] }
  "MCP tools/call *": deny
`;

let idp: TestIdentityProvider;
let express: McpApp;
let hono: McpApp;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const config = parseYaml(yaml(idp)) as object;
  const env = { ...idp.env, ADMIN_KEY: KEY };
  [express, hono] = await Promise.all([serveExpressMcp(config, env), serveHonoMcp(config, env)]);
});

afterAll(async () => {
  await Promise.all([express.close(), hono.close()]);
  await idp.close();
});

const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
const rpc = (method: string, params: Record<string, unknown> = {}, id = 1) => ({ jsonrpc: '2.0', id, method, params });
const tool = (name: string) => rpc('tools/call', { name, arguments: {} });
const token = (claims: Record<string, unknown> = {}) =>
  idp.signToken({ sub: 'user-1', aud: IDENTIFIER, client_id: 'weather-app', ...claims });
const bearer = async (claims?: Record<string, unknown>) => ({ authorization: `Bearer ${await token(claims)}` });

/** What the two adapters must agree on: status, the challenge, the content type, the body's JSON. */
function agreed(wire: Wire) {
  let body: unknown = wire.body;
  try {
    body = JSON.parse(wire.body);
  } catch {
    // An SSE answer: compared as text.
  }
  const type = wire.headers['content-type'];
  return { status: wire.status, challenge: wire.headers['www-authenticate'], type, body };
}

/** The same request to Express and to Hono; both answers, Hono's first. */
async function both(options: { method?: string; path?: string; headers?: Record<string, string>; body?: unknown }) {
  const request = {
    method: options.method ?? 'POST',
    path: options.path ?? '/mcp',
    headers: { ...MCP_HEADERS, ...options.headers },
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }),
  };
  const [fromHono, fromExpress] = await Promise.all([send(hono.url, request), send(express.url, request)]);
  return { hono: agreed(fromHono), express: agreed(fromExpress) };
}

const insufficient = (description: string, scopes: string) =>
  `Bearer realm="authlayer", error="insufficient_scope", error_description="${description}", scope="${scopes}", resource_metadata="${METADATA}"`;

describe('an MCP server behind Hono answers as behind Express', () => {
  it('runs an allowed tool with the caller as the SDK AuthInfo, and challenges, denies, refuses as Express', async () => {
    const allowed = await both({ headers: await bearer({ scope: 'weather:read' }), body: tool('get_forecast') });
    expect(allowed.hono).toEqual(allowed.express);
    expect(allowed.hono.status).toBe(200);
    expect(hono.ran).toEqual([{ tool: 'get_forecast', clientId: 'weather-app' }]);

    const missing = await both({ body: tool('get_forecast') });
    expect(missing.hono).toEqual(missing.express);
    expect([missing.hono.status, missing.hono.challenge]).toEqual([
      401,
      `ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", resource_metadata="${METADATA}"`,
    ]);
    const scoped = await both({ headers: await bearer({ scope: 'openid' }), body: tool('get_forecast') });
    expect(scoped.hono).toEqual(scoped.express);
    expect([scoped.hono.status, scoped.hono.challenge]).toEqual([
      403,
      insufficient('the scope weather:read is required', 'weather:read'),
    ]);
    const denied = await both({ headers: await bearer({ scope: 'weather:read' }), body: tool('delete_file') });
    expect(denied.hono).toEqual(denied.express);
    expect([denied.hono.status, denied.hono.challenge]).toEqual([403, undefined]);
    const role = await both({ headers: await bearer({ scope: 'weather:read' }), body: tool('admin_reset') });
    expect(role.hono).toEqual(role.express);
    expect(role.hono.body).toEqual({ error: 'forbidden', message: 'the role admin is required' });
    expect(hono.ran.map((each) => each.tool)).toEqual(['get_forecast']);
  });

  it('refuses a batch (400, -32600), a body that is not JSON (-32700), a long one (413), a header that says otherwise', async () => {
    const headers = { 'x-api-key': KEY };
    const cases: { body: unknown; headers?: Record<string, string> }[] = [
      { body: [tool('admin_reset'), tool('admin_reset')] },
      { body: '{"jsonrpc":' },
      { body: '\uFEFF' + JSON.stringify(tool('admin_reset')) },
      { body: { ...tool('admin_reset'), pad: 'x'.repeat(600) } },
      { body: { ...tool('admin_reset'), pad: 'x'.repeat(600) }, headers: { 'transfer-encoding': 'chunked' } },
      { body: tool('admin_reset'), headers: { 'mcp-name': 'other' } },
    ];
    const statuses: number[] = [];
    for (const each of cases) {
      const answers = await both({ body: each.body, headers: { ...headers, ...each.headers } });
      expect(answers.hono).toEqual(answers.express);
      statuses.push(answers.hono.status);
    }
    expect(statuses).toEqual([400, 400, 400, 413, 413, 400]);
    const batch = await both({ body: [tool('admin_reset')], headers });
    expect(batch.hono.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: batches are not supported' },
    });
  });

  it('lists only the tools the caller may call, in a JSON answer and in an event stream', async () => {
    for (const answer of ['json', 'sse']) {
      const listed = await both({ headers: { 'x-api-key': KEY, 'x-answer': answer }, body: rpc('tools/list') });
      expect(listed.hono).toEqual(listed.express);
      const text = typeof listed.hono.body === 'string' ? listed.hono.body : JSON.stringify(listed.hono.body);
      expect([text.includes('admin_reset'), text.includes('delete_file'), text.includes('reports:read')]).toEqual([
        true,
        false,
        true,
      ]);
    }
  });

  it('serves the RFC 9728 document before the table, and answers HEAD of it', async () => {
    const got = await both({ method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', headers: {} });
    expect(got.hono).toEqual(got.express);
    expect(got.hono.body).toMatchObject({ resource: IDENTIFIER, authorization_servers: [idp.issuer] });
    const head = await both({ method: 'HEAD', path: '/.well-known/oauth-protected-resource/mcp', headers: {} });
    expect(head.hono).toEqual(head.express);
    expect(head.hono.status).toBe(200);
  });

  it('refuses a foreign Host or Origin before any credential, at the endpoint and below it, any method', async () => {
    const decisions = (app: McpApp) => app.decisions.splice(0).map(comparable);
    decisions(hono);
    decisions(express);
    const foreign: Parameters<typeof both>[0][] = [
      { headers: { host: 'evil.example.com', 'x-api-key': KEY }, body: tool('admin_reset') },
      { headers: { origin: 'http://evil.example.com', 'x-api-key': KEY }, body: tool('admin_reset') },
      { method: 'GET', headers: { host: 'evil.example.com' } },
      { method: 'DELETE', path: '/mcp/below', headers: { host: 'evil.example.com' } },
    ];
    for (const each of foreign) {
      const answers = await both(each);
      expect(answers.hono).toEqual(answers.express);
      expect(answers.hono.status).toBe(403);
    }
    expect(decisions(hono)).toEqual(decisions(express));
    const own = await both({
      headers: { origin: 'https://mcp.example.com', 'x-api-key': KEY },
      body: tool('admin_reset'),
    });
    expect(own.hono.status).toBe(200);
  });

  it('makes the same decisions, the refusing MCP key named', async () => {
    hono.decisions.length = 0;
    express.decisions.length = 0;
    await both({ headers: await bearer({ scope: 'openid' }), body: tool('get_forecast') });
    await both({ headers: await bearer({ scope: 'weather:read' }), body: tool('get_forecast') });
    expect(hono.decisions.map(comparable)).toEqual(express.decisions.map(comparable));
    expect(hono.decisions.map((decision) => [decision.outcome, decision.reason, decision.userId])).toEqual([
      ['forbidden', 'scope_missing', 'user-1'],
      ['allowed', null, 'user-1'],
    ]);
    expect(hono.decisions[0]?.rule).toBe('MCP tools/call get_forecast');
  });
});
