import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  expectedContext,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, errorHandler, type AuthDecision, type AuthMiddleware } from '../src/index.js';

// MCP servers (contract, round 4): the "MCP <method> <name>" keys judge each JSON-RPC message
// POSTed to mcp.endpoint, after the route's own rule; raw JSON-RPC, one case per rule.
const IDENTIFIER = 'https://mcp.example.com/mcp';
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp';
const ACCESS = {
  'POST /mcp': 'authenticated',
  'MCP tools/call get_forecast': { scopes: ['weather:read'] },
  'MCP tools/call delete_file': { scopes: ['files:write'], roles: ['admin'] },
  'MCP tools/call transfer': { acr: ['urn:mfa'] },
  'MCP tools/call org_report': { claims: { 'org.tier': ['gold'] } },
  'MCP tools/call *': 'deny',
  'MCP resources/read': { scopes: ['files:read'] },
};

let idp: TestIdentityProvider;
let auth: AuthMiddleware;
let app: express.Express;
const decisions: AuthDecision[] = [];
const logger = createCaptureLogger();
const seen: { auth: unknown; body: unknown }[] = [];

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  const config = idp.config('jwt', { access: ACCESS, mcp: { endpoint: '/mcp', max_body_bytes: 512 } }) as {
    auth: { jwt: Record<string, unknown> };
  };
  // No audience of its own: resource.identifier is the one a token must name.
  auth = await createAuthMiddleware(
    {
      ...config,
      auth: { ...config.auth, jwt: { ...config.auth.jwt, audience: null } },
      resource: { identifier: IDENTIFIER },
    },
    { env: idp.env, logger, onDecision: (decision) => decisions.push(decision) },
  );
  app = express();
  app.use(auth.access);
  app.post('/mcp', (req, res) => {
    seen.push({ auth: req.auth, body: req.body });
    res.json({ ok: true });
  });
  app.use(errorHandler({ logger }));
});

afterAll(() => idp.close());

const token = (claims: Record<string, unknown> = {}) =>
  idp.signToken({ sub: 'user-1', aud: IDENTIFIER, scope: 'mcp:basic', ...claims });
const call = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
const post = async (body: unknown, claims?: Record<string, unknown>) =>
  request(app)
    .post('/mcp')
    .set('Authorization', `Bearer ${await token(claims)}`)
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));

describe('MCP keys of the access table', () => {
  it('lets a tool through when its rule holds, and leaves the parsed body on req.body', async () => {
    seen.length = 0;
    const res = await post(call('get_forecast'), { scope: 'mcp:basic weather:read' });
    expect(res.status).toBe(200);
    expect(seen[0]?.body).toEqual(call('get_forecast'));
  });

  it('refuses a tool for want of a scope: insufficient_scope naming the needed scopes only, not the held ones', async () => {
    decisions.length = 0;
    const res = await post(call('get_forecast'));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the scope weather:read is required' });
    expect(res.headers['www-authenticate']).toBe(
      `Bearer realm="authlayer", error="insufficient_scope", error_description="the scope weather:read is required", scope="weather:read", resource_metadata="${METADATA}"`,
    );
    expect(decisions).toMatchObject([{ outcome: 'forbidden', reason: 'scope_missing', userId: 'user-1' }]);
  });

  it('refuses for another reason (roles, deny) with a 403 and no challenge', async () => {
    decisions.length = 0;
    const roles = await post(call('delete_file'), { scope: 'files:write' });
    expect(roles.status).toBe(403);
    expect(roles.headers['www-authenticate']).toBeUndefined();
    expect(roles.body).toEqual({ error: 'forbidden', message: 'the role admin is required' });
    const other = await post(call('format_disk'), { scope: 'files:write weather:read' });
    expect(other.status).toBe(403);
    expect(other.headers['www-authenticate']).toBeUndefined();
    expect(other.body.message).toBe('this route is closed to every caller');
    expect(decisions.map((decision) => decision.reason)).toEqual(['role_missing', 'route_denied']);
  });

  it('claims and step-up in MCP keys: 403 claim_mismatch without a challenge, 401 step_up_required', async () => {
    decisions.length = 0;
    expect((await post(call('org_report'), { org: { tier: 'gold' } })).status).toBe(200);
    const claim = await post(call('org_report'), { org: { tier: 'silver' } });
    expect([claim.status, claim.body.message]).toEqual([403, 'the claim org.tier does not have an accepted value']);
    expect(claim.headers['www-authenticate']).toBeUndefined();
    expect((await post(call('transfer'), { acr: 'urn:mfa' })).status).toBe(200);
    const stepUp = await post(call('transfer'), { acr: 'urn:pwd' });
    expect(stepUp.status).toBe(401);
    expect(stepUp.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="insufficient_user_authentication", error_description="a stronger or more ' +
        `recent authentication is required", acr_values="urn:mfa", resource_metadata="${METADATA}"`,
    );
    expect(decisions.map(({ outcome, reason, userId }) => [outcome, reason, userId])).toEqual([
      ['allowed', null, 'user-1'],
      ['forbidden', 'claim_mismatch', 'user-1'],
      ['allowed', null, 'user-1'],
      ['refused', 'step_up_required', 'user-1'],
    ]);
  });

  it('applies "MCP <method>" to every message of the method, and nothing to a method without keys', async () => {
    const read = { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'file:///a' } };
    expect((await post(read)).status).toBe(403);
    expect((await post(read, { scope: 'files:read' })).status).toBe(200);
    expect((await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' })).status).toBe(200);
    // A notification is judged as a request is.
    expect((await post({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'other' } })).status).toBe(403);
  });

  it('refuses a batch (a JSON array) with 400 and a JSON-RPC -32600 before any message is judged', async () => {
    seen.length = 0;
    const res = await post([call('get_forecast', 1), call('get_forecast', 2)], { scope: 'weather:read' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: batches are not supported' },
    });
    expect(seen).toEqual([]);
  });

  it('answers 400 when Mcp-Method or Mcp-Name says otherwise than the body', async () => {
    const send = async (headers: Record<string, string>) =>
      request(app)
        .post('/mcp')
        .set('Authorization', `Bearer ${await token({ scope: 'weather:read' })}`)
        .set(headers)
        .send(call('get_forecast'));
    const method = await send({ 'Mcp-Method': 'tools/list' });
    expect([method.status, method.body]).toEqual([
      400,
      { error: 'invalid_request', message: 'the Mcp-Method header does not match the body' },
    ]);
    expect((await send({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'delete_file' })).body.message).toBe(
      'the Mcp-Name header does not match the body',
    );
    expect((await send({ 'Mcp-Method': 'tools/call', 'Mcp-Name': 'get_forecast' })).status).toBe(200);
  });

  it('answers 413 past mcp.max_body_bytes, declared or streamed, and 400 with JSON-RPC parse error for no JSON', async () => {
    const big = JSON.stringify({ ...call('get_forecast'), pad: 'x'.repeat(600) });
    const declared = await post(big, { scope: 'weather:read' });
    expect([declared.status, declared.body.error]).toEqual([413, 'payload_too_large']);
    const bearer = `Bearer ${await token({ scope: 'weather:read' })}`;
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(app).post('/mcp').set('Authorization', bearer).set('Transfer-Encoding', 'chunked');
      req.write(big.slice(0, 300));
      req.write(big.slice(300));
      req.end((error, res) => (error ? reject(error) : resolve(res.status)));
    });
    expect(streamed).toBe(413);
    const bad = await post('{"jsonrpc": "2.0",', { scope: 'weather:read' });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
  });

  it('applies the route rule first: without a token the body is never judged (401)', async () => {
    const res = await request(app).post('/mcp').send('not json');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer realm="authlayer", resource_metadata="${METADATA}"`);
  });

  it('refuses a token whose aud does not name resource.identifier (RFC 8707), and takes a list naming it', async () => {
    const other = await post(call('get_forecast'), { aud: 'https://other.example.com', scope: 'weather:read' });
    expect(other.status).toBe(401);
    expect(other.headers['www-authenticate']).toMatch(/error="invalid_token", error_description="[^"]*audience/);
    const list = await post(call('get_forecast'), { aud: ['x', IDENTIFIER], scope: 'weather:read' });
    expect(list.status).toBe(200);
  });

  it('gives req.auth the fields of the SDK AuthInfo, none of them in its JSON or a log line', async () => {
    seen.length = 0;
    logger.lines.length = 0;
    const exp = Math.floor(Date.now() / 1000) + 120;
    const presented = await token({ scope: 'weather:read', client_id: 'weather-app', azp: 'x', exp });
    await request(app).post('/mcp').set('Authorization', `Bearer ${presented}`).send(call('get_forecast')).expect(200);
    expect((await post(call('get_forecast'), { scope: 'weather:read', azp: 'azp-app' })).status).toBe(200);
    expect((await post(call('get_forecast'), { scope: 'weather:read' })).status).toBe(200);
    const info = seen[0]?.auth as Record<string, unknown>;
    expect(info.token).toBe(presented);
    expect(info.clientId).toBe('weather-app');
    expect(info.expiresAt).toBe(exp);
    expect(info.resource).toEqual(new URL(IDENTIFIER));
    expect(info.scopes).toEqual(['weather:read']);
    expect(seen.map((each) => (each.auth as { clientId: string }).clientId)).toEqual([
      'weather-app',
      'azp-app',
      'user-1',
    ]);
    expect(JSON.parse(JSON.stringify(info))).toEqual(
      expectedContext({ method: 'jwt', userId: 'user-1', scopes: ['weather:read'] }),
    );
    expect(Object.keys(info)).not.toContain('token');
    expect(logger.text.join('\n')).not.toContain(presented);
  });

  it('does not count MCP keys as routes the app lacks', () => {
    expect(auth.unmatchedRules(app)).toEqual([]);
  });
});
