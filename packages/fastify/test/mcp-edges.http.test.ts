import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, startTestIdentityProvider, type TestIdentityProvider } from '@authlayer/testkit';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import authlayer, { type AuthDecision } from '../src/index.js';
import { call } from './support/call.js';
import { INITIALIZE, MCP_HEADERS, mcpRoute, toolCall } from './support/mcp-route.js';

// The edges of an MCP endpoint on Fastify (contract, round 5, "Edges"): a wildcard route `/mcp/*`
// beside `/mcp` serves what lies below the endpoint, and every POST there is judged as MCP messages;
// every request there carries an allowed Host and Origin, checked before any credential.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const ACCESS = {
  'POST /mcp': 'authenticated',
  'GET /health': 'public',
  'MCP tools/call get_forecast': { scopes: ['weather:read'] },
  'MCP tools/call *': 'deny',
};

let idp: TestIdentityProvider;
let bearer: Record<string, string>;

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  bearer = {
    authorization: `Bearer ${await idp.signToken({ sub: 'user-1', aud: IDENTIFIER, scope: 'weather:read' })}`,
  };
});

afterAll(() => idp.close());

/** `/mcp` and the wildcard `/mcp/*` (POST and GET) with the SDK's transport; `/health` aside. */
async function serve(mcp: object, ran: string[], decisions: AuthDecision[], options: FastifyServerOptions = {}) {
  const config = idp.config('jwt', { access: ACCESS, mcp: { endpoint: '/mcp', ...mcp } }) as { auth: { jwt: object } };
  const app: FastifyInstance = Fastify(options);
  await app.register(authlayer, {
    config: {
      ...config,
      auth: { ...config.auth, jwt: { ...config.auth.jwt, audience: null } },
      resource: { identifier: IDENTIFIER },
    },
    env: idp.env,
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  for (const url of ['/mcp', '/mcp/*']) app.route({ method: ['POST', 'GET', 'DELETE'], url, handler: mcpRoute(ran) });
  app.get('/health', async () => ({ ok: true }));
  await app.ready();
  return app;
}

const ROUTERS: Record<string, FastifyServerOptions> = {
  'the default router': {},
  'a case-insensitive router with duplicate slashes ignored': {
    routerOptions: { caseSensitive: false, ignoreDuplicateSlashes: true },
  },
};

describe.each(Object.entries(ROUTERS))('a wildcard route below the MCP endpoint, %s', (name, options) => {
  const ran: string[] = [];
  const decisions: AuthDecision[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await serve({}, ran, decisions, options);
  });
  afterAll(() => app.close());

  // `/MCP/x` reaches no route of the default router (its allowed call is 404); every other path
  // reaches the transport. A denied call is refused wherever it goes, as a POST below the endpoint.
  const reached = (path: string) => path !== '/MCP/x' || name !== 'the default router';

  it.each(['/mcp', '/mcp/x', '/mcp/%2e', '/mcp/a/b', '/MCP/x', '/mcp//x'])(
    'judges POST %s: a denied tool never runs, an allowed one does',
    async (path) => {
      ran.length = 0;
      decisions.length = 0;
      const headers = { ...MCP_HEADERS, ...bearer };
      const denied = await call(app, { method: 'POST', url: path, headers, body: toolCall('delete_file') });
      expect([path, denied.statusCode]).toEqual([path, 403]);
      const allowed = await call(app, { method: 'POST', url: path, headers, body: toolCall('get_forecast') });
      expect([path, allowed.statusCode]).toEqual([path, reached(path) ? 200 : 404]);
      expect(ran).toEqual(reached(path) ? ['get_forecast'] : []);
      expect(decisions[0]?.reason).toBe('route_denied');
    },
  );
});

describe('the Host and Origin of requests to the MCP endpoint on Fastify', () => {
  const decisions: AuthDecision[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    app = await serve({}, [], decisions);
  });
  afterAll(() => app.close());

  it('refuses a foreign Host with 403 and accepts its own (the conformance suite case)', async () => {
    decisions.length = 0;
    const foreign = await call(app, {
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, host: 'evil.example.com' },
      body: INITIALIZE,
    });
    expect([foreign.statusCode, foreign.json()]).toEqual([
      403,
      { error: 'forbidden', message: 'the Host header names a host this MCP server does not serve' },
    ]);
    expect(decisions.map((decision) => [decision.outcome, decision.reason])).toEqual([
      ['forbidden', 'host_not_allowed'],
    ]);
    const own = await call(app, {
      method: 'POST',
      url: '/mcp',
      headers: { ...MCP_HEADERS, ...bearer },
      body: INITIALIZE,
    });
    expect(own.statusCode).toBe(200);
  });

  it('refuses a foreign Origin, accepts its own', async () => {
    const post = (origin: string) =>
      call(app, { method: 'POST', url: '/mcp', headers: { ...MCP_HEADERS, ...bearer, origin }, body: INITIALIZE });
    expect((await post('http://evil.example.com')).statusCode).toBe(403);
    expect((await post('https://mcp.example.com')).statusCode).toBe(200);
  });

  it('checks every method at the endpoint and below it, before the credential; other paths are not checked', async () => {
    for (const [method, url] of [
      ['GET', '/mcp'],
      ['DELETE', '/mcp'],
      ['POST', '/mcp/x'],
      ['GET', '/mcp/nowhere/at/all'],
    ] as const) {
      const answer = await call(app, { method, url, headers: { host: 'evil.example.com', ...bearer } });
      expect([method, url, answer.statusCode]).toEqual([method, url, 403]);
    }
    expect((await call(app, { method: 'GET', url: '/health', headers: { host: 'evil.example.com' } })).statusCode).toBe(
      200,
    );
  });

  it('["*"] turns both checks off', async () => {
    const open = await serve({ allowed_hosts: ['*'], allowed_origins: ['*'] }, [], []);
    try {
      const headers = { ...MCP_HEADERS, ...bearer, host: 'evil.example.com', origin: 'http://evil.example.com' };
      expect((await call(open, { method: 'POST', url: '/mcp', headers, body: INITIALIZE })).statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});
