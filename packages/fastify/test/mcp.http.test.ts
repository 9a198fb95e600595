import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { call as send } from './support/call.js';
import authlayer, { type AuthDecision } from '../src/index.js';

// MCP servers on Fastify: the same MCP keys and answers as on Express, the body parsed by Fastify.
const IDENTIFIER = 'https://mcp.example.com/mcp';
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ACCESS = {
  'POST /mcp': 'authenticated',
  'MCP tools/call get_forecast': { scopes: ['weather:read'] },
  'MCP tools/call *': 'deny',
};
const call = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

let idp: TestIdentityProvider;
let app: FastifyInstance;
const decisions: AuthDecision[] = [];
const seen: { auth: Record<string, unknown> | undefined; body: unknown }[] = [];

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const config = idp.config('jwt', { access: ACCESS, mcp: { endpoint: '/mcp', max_body_bytes: 512 } }) as {
    auth: { jwt: object };
  };
  app = Fastify();
  await app.register(authlayer, {
    config: {
      ...config,
      auth: { ...config.auth, jwt: { ...config.auth.jwt, audience: null } },
      resource: { identifier: IDENTIFIER },
    },
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  app.post('/mcp', async (request) => {
    seen.push({ auth: request.auth as unknown as Record<string, unknown>, body: request.body });
    return { ok: true };
  });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await idp.close();
});

const post = async (body: unknown, claims: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  send(app, {
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${await idp.signToken({ sub: 'user-1', aud: IDENTIFIER, ...claims })}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('MCP keys on Fastify', () => {
  it('lets a tool through when its rule holds, with request.body and the AuthInfo fields', async () => {
    const res = await post(call('get_forecast'), { scope: 'weather:read', client_id: 'weather-app' });
    expect(res.statusCode).toBe(200);
    expect(seen[0]?.body).toEqual(call('get_forecast'));
    const info = seen[0]?.auth;
    expect([info?.clientId, (info?.resource as URL).href, typeof info?.token]).toEqual([
      'weather-app',
      IDENTIFIER,
      'string',
    ]);
    expect(JSON.stringify(info)).not.toContain(info?.token as string);
  });

  it('refuses for want of a scope with the insufficient_scope challenge, and deny without one', async () => {
    decisions.length = 0;
    const scoped = await post(call('get_forecast'), { scope: 'mcp:basic' });
    expect(scoped.statusCode).toBe(403);
    expect(scoped.headers['www-authenticate']).toBe(
      `Bearer realm="authlayer", error="insufficient_scope", error_description="the scope weather:read is required", scope="weather:read", resource_metadata="${METADATA}"`,
    );
    expect(JSON.parse(scoped.body)).toEqual({ error: 'forbidden', message: 'the scope weather:read is required' });
    const denied = await post(call('other', 2), { scope: 'weather:read' });
    expect([denied.statusCode, denied.headers['www-authenticate']]).toEqual([403, undefined]);
    expect(decisions.map((decision) => [decision.outcome, decision.reason])).toEqual([
      ['forbidden', 'scope_missing'],
      ['forbidden', 'route_denied'],
    ]);
  });

  it('answers 400 for a header that says otherwise, 413 past the limit, and the JSON-RPC parse error', async () => {
    const mismatch = await post(call('get_forecast'), { scope: 'weather:read' }, { 'mcp-name': 'other' });
    expect([mismatch.statusCode, JSON.parse(mismatch.body).message]).toEqual([
      400,
      'the Mcp-Name header does not match the body',
    ]);
    const big = await post({ ...call('get_forecast'), pad: 'x'.repeat(600) }, { scope: 'weather:read' });
    expect([big.statusCode, JSON.parse(big.body).error]).toEqual([413, 'payload_too_large']);
    const streamed = await post(
      { ...call('get_forecast'), pad: 'x'.repeat(600) },
      { scope: 'weather:read' },
      {
        'transfer-encoding': 'chunked',
      },
    );
    expect(streamed.statusCode).toBe(413);
    const bad = await post('{"jsonrpc":', { scope: 'weather:read' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  });

  it('refuses a token whose aud does not name the resource', async () => {
    const res = await post(call('get_forecast'), { scope: 'weather:read', aud: 'https://other.example.com' });
    expect(res.statusCode).toBe(401);
  });
});
