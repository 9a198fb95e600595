import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import express from 'express';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorHandler, type AuthDecision } from '../src/index.js';
import { callTool, mcpMiddleware, send, serveMcp } from './support/mcp-tools.js';

// Every POST that a handler serving mcp.endpoint can receive is judged as MCP messages (contract,
// round 5, "Edges"): a transport mounted with app.use('/mcp'), a splat route or a router also
// serves /mcp/x, and a token with weather:read only must not run a denied tool there.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const ACCESS = {
  'POST /mcp': 'authenticated',
  'MCP tools/call get_forecast': { scopes: ['weather:read'] },
  'MCP tools/call *': 'deny',
};
const PATHS = ['/mcp', '/mcp/', '/mcp/x', '/mcp/%2e', '/mcp/a/b', '/MCP/x', '/mcp//x'];

type Mount = (app: express.Express, handler: express.RequestHandler) => void;
const MOUNTS: Record<string, Mount> = {
  "app.use('/mcp')": (app, handler) => app.use('/mcp', handler),
  "app.post('/mcp{/*rest}')": (app, handler) => app.post('/mcp{/*rest}', handler),
  "a Router's post('{/*rest}') at app.use('/mcp')": (app, handler) => {
    const router = express.Router();
    router.post('{/*rest}', handler);
    app.use('/mcp', router);
  },
};

let idp: TestIdentityProvider;
let token: string;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  token = await idp.signToken({ sub: 'user-1', aud: IDENTIFIER, scope: 'weather:read' });
});

afterAll(() => idp.close());

describe.each(Object.entries(MOUNTS))('an MCP transport mounted with %s', (_name, mount) => {
  const ran: string[] = [];
  const decisions: AuthDecision[] = [];
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const logger = createCaptureLogger();
    const auth = await mcpMiddleware(idp, { access: ACCESS, identifier: IDENTIFIER, logger, decisions });
    const app = express();
    app.use(auth.access);
    mount(app, (req, res) => void serveMcp(req, res, req.body, ran));
    app.use(errorHandler({ logger }));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it.each(PATHS)('judges POST %s: a denied tool never runs, an allowed one does', async (path) => {
    ran.length = 0;
    decisions.length = 0;
    const headers = { authorization: `Bearer ${token}` };
    const denied = await send(port, 'POST', path, headers, callTool('delete_file'));
    expect([denied.status, JSON.parse(denied.body)]).toEqual([
      403,
      { error: 'forbidden', message: 'this route is closed to every caller' },
    ]);
    expect(decisions.map((decision) => [decision.outcome, decision.reason])).toEqual([['forbidden', 'route_denied']]);
    const allowed = await send(port, 'POST', path, headers, callTool('get_forecast'));
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.body)).toMatchObject({ result: { content: [{ text: 'get_forecast' }] } });
    expect(ran).toEqual(['get_forecast']);
  });
});
