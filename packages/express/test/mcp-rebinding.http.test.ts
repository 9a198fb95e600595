import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorHandler, type AuthDecision, type AuthMiddleware } from '../src/index.js';
import { INITIALIZE, mcpMiddleware, send, serveMcp } from './support/mcp-tools.js';

// The MCP transport's DNS-rebinding rule (contract, round 5, "Edges"): requests to mcp.endpoint and
// below carry an allowed Host and, when they have one, an allowed Origin, checked before any
// credential. The first case is the MCP conformance suite's dns-rebinding-protection scenario.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const ACCESS = { 'POST /mcp': 'authenticated', 'GET /health': 'public', 'MCP tools/call *': 'deny' };

let idp: TestIdentityProvider;
let token: string;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  token = await idp.signToken({ sub: 'user-1', aud: IDENTIFIER });
});

afterAll(() => idp.close());

/** An Express app with the SDK's transport at app.use('/mcp'), on a loopback port. */
async function serve(mcp: object, decisions: AuthDecision[]) {
  const logger = createCaptureLogger();
  const auth: AuthMiddleware = await mcpMiddleware(idp, {
    access: ACCESS,
    identifier: IDENTIFIER,
    mcp,
    logger,
    decisions,
  });
  const app = express();
  app.use(auth.access);
  app.get('/health', (_req, res) => res.json({ ok: true }));
  app.use('/mcp', (req, res) => void serveMcp(req, res, req.body, []));
  app.use(errorHandler({ logger }));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe('the Host and Origin of requests to the MCP endpoint', () => {
  const decisions: AuthDecision[] = [];
  let served: Awaited<ReturnType<typeof serve>>;
  const bearer = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    served = await serve({}, decisions);
  });
  afterAll(() => served.close());

  it('refuses a foreign Host with 403 and accepts its own (the conformance suite case)', async () => {
    decisions.length = 0;
    const foreign = await send(served.port, 'POST', '/mcp', { host: 'evil.example.com' }, INITIALIZE);
    expect([foreign.status, JSON.parse(foreign.body)]).toEqual([
      403,
      { error: 'forbidden', message: 'the Host header names a host this MCP server does not serve' },
    ]);
    expect(decisions.map((decision) => [decision.outcome, decision.reason, decision.userId])).toEqual([
      ['forbidden', 'host_not_allowed', null],
    ]);
    const own = await send(served.port, 'POST', '/mcp', { host: `127.0.0.1:${served.port}`, ...bearer() }, INITIALIZE);
    expect(own.status).toBe(200);
    const named = await send(served.port, 'POST', '/mcp', { host: 'mcp.example.com', ...bearer() }, INITIALIZE);
    expect(named.status).toBe(200);
    // Without a credential the own Host gets the 401 (anything but 403 passes the suite's check).
    expect((await send(served.port, 'POST', '/mcp', {}, INITIALIZE)).status).toBe(401);
  });

  it('refuses a foreign Origin, accepts its own and none', async () => {
    decisions.length = 0;
    const foreign = await send(
      served.port,
      'POST',
      '/mcp',
      { origin: 'http://evil.example.com', ...bearer() },
      INITIALIZE,
    );
    expect([foreign.status, JSON.parse(foreign.body).message]).toEqual([
      403,
      'the Origin header names an origin this MCP server does not accept',
    ]);
    expect(decisions.map((decision) => decision.reason)).toEqual(['origin_not_allowed']);
    const own = await send(served.port, 'POST', '/mcp', { origin: 'https://mcp.example.com', ...bearer() }, INITIALIZE);
    expect(own.status).toBe(200);
  });

  it('checks every method at the endpoint and below it, before the credential; other paths are not checked', async () => {
    const evil = { host: 'evil.example.com', ...bearer() };
    for (const [method, path] of [
      ['GET', '/mcp'],
      ['DELETE', '/mcp'],
      ['POST', '/mcp/x'],
      ['GET', '/MCP/sse'],
    ] as const) {
      const answer = await send(served.port, method, path, evil, method === 'POST' ? INITIALIZE : undefined);
      expect([method, path, answer.status]).toEqual([method, path, 403]);
    }
    // The own Host reaches the transport (which answers a GET that accepts no event stream 406).
    const get = await send(served.port, 'GET', '/mcp', { ...bearer(), accept: 'application/json' });
    expect(get.status).toBe(406);
    expect((await send(served.port, 'GET', '/health', { host: 'evil.example.com' })).status).toBe(200);
  });
});

describe('mcp.allowed_hosts and mcp.allowed_origins', () => {
  it('["*"] turns both checks off', async () => {
    const served = await serve({ allowed_hosts: ['*'], allowed_origins: ['*'] }, []);
    try {
      const headers = { host: 'evil.example.com', origin: 'http://evil.example.com', authorization: `Bearer ${token}` };
      expect((await send(served.port, 'POST', '/mcp', headers, INITIALIZE)).status).toBe(200);
    } finally {
      served.close();
    }
  });

  it('a written list replaces the defaults', async () => {
    const served = await serve(
      { allowed_hosts: ['mcp.internal:8443'], allowed_origins: ['https://app.example.com'] },
      [],
    );
    try {
      const ok = { host: 'mcp.internal:8443', origin: 'https://app.example.com', authorization: `Bearer ${token}` };
      expect((await send(served.port, 'POST', '/mcp', ok, INITIALIZE)).status).toBe(200);
      expect((await send(served.port, 'POST', '/mcp', { ...ok, host: 'localhost' }, INITIALIZE)).status).toBe(403);
      const own = { ...ok, origin: 'https://mcp.example.com' };
      expect((await send(served.port, 'POST', '/mcp', own, INITIALIZE)).status).toBe(403);
    } finally {
      served.close();
    }
  });
});
