import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  openRawConnection,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, errorHandler, type AuthDecision } from '../src/index.js';

// MCP keys with other modes and route values: API keys and introspection as the SDK's AuthInfo,
// a public or optional endpoint, a body parsed before auth.access, and report_only.
const KEY = 'mcp-api-key-0123456789abcdef';
const IDENTIFIER = 'https://mcp.example.com/mcp';
const TOOLS = { 'MCP tools/call get_forecast': { scopes: ['weather:read'] }, 'MCP tools/call *': 'deny' };
const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } });

let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterAll(() => idp.close());

async function serve(
  config: Record<string, unknown>,
  options: { env?: Record<string, string>; parseFirst?: boolean } = {},
) {
  const logger = createCaptureLogger();
  const decisions: AuthDecision[] = [];
  const auth = await createAuthMiddleware(config, {
    env: options.env ?? {},
    logger,
    onDecision: (decision) => decisions.push(decision),
  });
  const seen: Record<string, unknown>[] = [];
  const app = express();
  if (options.parseFirst === true) app.use(express.json());
  app.use(auth.access);
  app.post('/mcp', (req, res) => {
    seen.push(req.auth as unknown as Record<string, unknown>);
    res.json({ body: req.body });
  });
  app.use(errorHandler({ logger }));
  return { app, seen, logger, decisions };
}

describe('MCP keys and AuthInfo across modes', () => {
  it('gives an API key client its name as clientId and the key expiry as expiresAt', async () => {
    const { app, seen, logger } = await serve(
      {
        auth: {
          mode: 'api_key',
          api_keys: { keys: [{ name: 'weather-bot', env_var: 'BOT_KEY', expires: '2099-01-01' }] },
        },
        resource: { identifier: IDENTIFIER },
        mcp: { endpoint: '/mcp' },
        access: { 'POST /mcp': 'authenticated', 'MCP tools/call *': 'deny', 'MCP tools/list': 'authenticated' },
      },
      { env: { BOT_KEY: KEY } },
    );
    await request(app)
      .post('/mcp')
      .set('X-API-Key', KEY)
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
      .expect(200);
    const info = seen[0] as { token: string; clientId: string; expiresAt: number; resource: URL };
    expect([info.token, info.clientId, info.resource.href]).toEqual([KEY, 'weather-bot', IDENTIFIER]);
    // The key's last day, in seconds.
    expect(info.expiresAt).toBeGreaterThanOrEqual(Date.parse('2099-01-01') / 1000);
    expect(info.expiresAt).toBeLessThanOrEqual(Date.parse('2099-01-02') / 1000);
    expect(JSON.stringify(info)).not.toContain(KEY);
    const denied = await request(app).post('/mcp').set('X-API-Key', KEY).send(call('x'));
    expect([denied.status, denied.headers['www-authenticate']]).toEqual([403, undefined]);
    expect(logger.text.join('\n')).not.toContain(KEY);
  });

  it('gives an introspected token its client_id, and refuses one whose aud is not the resource', async () => {
    const config = idp.config('oauth2', {
      resource: { identifier: IDENTIFIER },
      mcp: { endpoint: '/mcp' },
      access: { 'POST /mcp': 'authenticated', ...TOOLS },
    }) as { auth: { oauth2: object } };
    // No audience written: the resource identifier is the one the answer's aud must hold.
    const { app, seen } = await serve(
      { ...config, auth: { ...config.auth, oauth2: { ...config.auth.oauth2, audience: null } } },
      { env: idp.env },
    );
    const opaque = idp.issueOpaqueToken({
      sub: 'user-2',
      client_id: 'weather-app',
      aud: IDENTIFIER,
      scope: 'weather:read',
    });
    const ok = await request(app).post('/mcp').set('Authorization', `Bearer ${opaque}`).send(call('get_forecast'));
    expect(ok.status).toBe(200);
    const info = seen[0] as { clientId: string; token: string };
    expect([info.clientId, info.token]).toEqual(['weather-app', opaque]);
    const other = idp.issueOpaqueToken({ sub: 'user-2', scope: 'weather:read' });
    const refused = await request(app).post('/mcp').set('Authorization', `Bearer ${other}`).send(call('get_forecast'));
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm="authlayer", error="invalid_token"/);
  });

  it('judges a body a parser before auth.access already read', async () => {
    const { app } = await serve(
      idp.config('jwt', {
        resource: { identifier: IDENTIFIER },
        mcp: { endpoint: '/mcp' },
        access: { 'POST /mcp': 'authenticated', ...TOOLS },
      }),
      { parseFirst: true },
    );
    const token = await idp.signToken({ sub: 'u', scope: 'weather:read' });
    const bearer = `Bearer ${token}`;
    const ok = await request(app).post('/mcp').set('Authorization', bearer).send(call('get_forecast'));
    expect([ok.status, ok.body]).toEqual([200, { body: call('get_forecast') }]);
    expect((await request(app).post('/mcp').set('Authorization', bearer).send(call('other'))).status).toBe(403);
  });

  it('asks an anonymous caller of a public or optional endpoint for a credential when a message needs one', async () => {
    for (const value of ['public', 'optional']) {
      const { app, decisions } = await serve(
        idp.config('jwt', {
          mcp: { endpoint: '/mcp' },
          access: { 'POST /mcp': value, ...TOOLS, 'MCP tools/list': 'public' },
        }),
      );
      const res = await request(app).post('/mcp').send(call('get_forecast'));
      expect([res.status, res.headers['www-authenticate'], res.body.error]).toEqual([
        401,
        'Bearer realm="authlayer"',
        'unauthorized',
      ]);
      expect(decisions.at(-1)).toMatchObject({ outcome: 'refused', reason: 'credentials_missing' });
      expect((await request(app).post('/mcp').send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).status).toBe(200);
    }
  });

  it('answers a credential of a mode an MCP rule leaves out as no credential (401), and lets the named mode in', async () => {
    const base = idp.config('jwt', {
      mcp: { endpoint: '/mcp' },
      access: { 'POST /mcp': 'authenticated', 'MCP tools/call get_forecast': { modes: ['jwt'] } },
    }) as { auth: Record<string, unknown> };
    const { app } = await serve(
      { ...base, auth: { ...base.auth, mode: ['api_key', 'jwt'] } },
      { env: { SERVICE_API_KEY: KEY } },
    );
    const byKey = await request(app).post('/mcp').set('X-API-Key', KEY).send(call('get_forecast'));
    expect([byKey.status, byKey.body.error]).toEqual([401, 'unauthorized']);
    const token = await idp.signToken({ sub: 'u' });
    const byToken = await request(app).post('/mcp').set('Authorization', `Bearer ${token}`).send(call('get_forecast'));
    expect(byToken.status).toBe(200);
  });

  it('with report_only, reports would_refuse with the MCP key and lets the message through', async () => {
    const { app, decisions, logger } = await serve(
      idp.config('jwt', {
        mcp: { endpoint: '/mcp' },
        access: { report_only: true, 'POST /mcp': 'authenticated', ...TOOLS },
      }),
    );
    const token = await idp.signToken({ sub: 'u' });
    const res = await request(app).post('/mcp').set('Authorization', `Bearer ${token}`).send(call('get_forecast'));
    expect(res.status).toBe(200);
    expect(decisions).toMatchObject([{ outcome: 'would_refuse', reason: 'scope_missing', userId: 'u' }]);
    expect(logger.text).toContain('warn: access report_only: would_refuse MCP tools/call get_forecast (scope_missing)');
  });

  it('names the MCP key in the log line of a refusal under report_only', async () => {
    const { app, logger, decisions } = await serve(
      idp.config('jwt', { mcp: { endpoint: '/mcp' }, access: { 'POST /mcp': 'authenticated', ...TOOLS } }),
    );
    const token = await idp.signToken({ sub: 'u' });
    await request(app).post('/mcp').set('Authorization', `Bearer ${token}`).send(call('get_forecast')).expect(403);
    expect(decisions).toMatchObject([{ outcome: 'forbidden', reason: 'scope_missing', userId: 'u', method: 'jwt' }]);
    expect(logger.text.join('\n')).not.toContain(token);
  });
});

describe('MCP bodies and listeners that fail', () => {
  it('answers 500 when the decision listener throws on a refused message', async () => {
    const logger = createCaptureLogger();
    const auth = await createAuthMiddleware(
      idp.config('jwt', { mcp: { endpoint: '/mcp' }, access: { 'POST /mcp': 'public', ...TOOLS } }),
      {
        logger,
        onDecision: () => {
          throw new Error('listener broke');
        },
      },
    );
    const app = express();
    app.use(auth.access);
    app.post('/mcp', (_req, res) => res.json({ ok: true }));
    app.use(errorHandler({ logger }));
    const token = await idp.signToken({ sub: 'u' });
    const res = await request(app).post('/mcp').set('Authorization', `Bearer ${token}`).send(call('other'));
    expect([res.status, res.body.error]).toEqual([500, 'internal']);
  });

  it('never runs the handler when the client hangs up in the middle of the body', async () => {
    let handled = 0;
    let arrived!: () => void;
    let closed!: () => void;
    const reading = new Promise<void>((resolve) => (arrived = resolve));
    const done = new Promise<void>((resolve) => (closed = resolve));
    // API keys answer in the same turn: once the request arrived, its body is being read.
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key' }, mcp: { endpoint: '/mcp' }, access: { 'POST /mcp': 'authenticated', ...TOOLS } },
      { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
    );
    const app = express();
    app.use((_req, res, next) => {
      res.on('close', () => closed());
      next();
      arrived();
    });
    app.use(auth.access);
    app.post('/mcp', (_req, res) => {
      handled += 1;
      res.end();
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    const connection = await openRawConnection(`http://127.0.0.1:${port}`);
    connection.write(
      `POST /mcp HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
    );
    await reading;
    connection.destroy();
    await done;
    expect(handled).toBe(0);
    await new Promise((resolve) => server.close(resolve));
  });
});
