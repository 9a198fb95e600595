import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, errorHandler, requireAccess, type AuthDecision } from '../src/index.js';

// A decision that refuses, would refuse or ends names the key that decided in `rule`, and
// `access.log: refusals` writes each as one line through the middleware's logger (none without it).

const READER = 'reader-key-0123456789abcdef';
const ADMIN = 'admin-key-0123456789abcdef0';
const env = { READER_KEY: READER, ADMIN_KEY: ADMIN };
const keys = [
  { name: 'reader', env_var: 'READER_KEY', roles: ['reader'] },
  { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
];
const ACCESS = {
  'GET /reports/:id': { roles: ['admin'] },
  'GET /open': 'authenticated',
  'GET /guarded': 'authenticated',
  'POST /mcp': 'authenticated',
  'MCP tools/call delete_file': { roles: ['admin'] },
};

async function serve(access: Record<string, unknown>, listen = true) {
  const logger = createCaptureLogger();
  const decisions: AuthDecision[] = [];
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key', api_keys: { keys } }, mcp: { endpoint: '/mcp' }, access },
    { env, logger, ...(listen ? { onDecision: (decision: AuthDecision) => decisions.push(decision) } : {}) },
  );
  const app = express();
  app.use(auth.access);
  app.get('/reports/:id', (_req, res) => res.json({ ok: true }));
  app.get('/open', (_req, res) => res.json({ ok: true }));
  app.get('/guarded', requireAccess({ roles: ['admin'] }), (_req, res) => res.json({ ok: true }));
  app.post('/mcp', (_req, res) => res.json({ ok: true }));
  app.use(errorHandler({ logger }));
  return { app, decisions, logger };
}

const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
const brief = (decisions: AuthDecision[]) => decisions.map(({ outcome, reason, rule }) => [outcome, reason, rule]);

describe('the decision names the key that decided (rule)', () => {
  it('a route key, an MCP key, the default, a 401, a guard; null when allowed', async () => {
    const { app, decisions } = await serve({ ...ACCESS, default: 'deny' });
    await request(app).get('/reports/7').set('X-API-Key', READER).expect(403);
    await request(app).post('/mcp').set('X-API-Key', READER).send(call('delete_file')).expect(403);
    await request(app).get('/nowhere').set('X-API-Key', ADMIN).expect(403);
    await request(app).get('/open').expect(401);
    await request(app).get('/guarded').set('X-API-Key', READER).expect(403);
    await request(app).get('/reports/7').set('X-API-Key', ADMIN).expect(200);
    expect(brief(decisions)).toEqual([
      ['forbidden', 'role_missing', 'GET /reports/:id'],
      ['forbidden', 'role_missing', 'MCP tools/call delete_file'],
      ['forbidden', 'route_denied', 'default'],
      ['refused', 'credentials_missing', 'GET /open'],
      // A guard names the route it guards, as registered.
      ['forbidden', 'role_missing', 'GET /guarded'],
      ['allowed', null, null],
    ]);
  });

  it('a 401 on a route no key names: default: authenticated asked for the caller, so `default`', async () => {
    const { app, decisions } = await serve(ACCESS);
    await request(app).get('/nowhere').set('X-API-Key', 'wrong-key-0123456789abcdef').expect(401);
    expect(brief(decisions)).toEqual([['refused', 'credentials_invalid', 'default']]);
  });

  it('report_only: would_refuse names the route key, the MCP key and the default', async () => {
    const { app, decisions } = await serve({ ...ACCESS, default: 'deny', report_only: true });
    await request(app).get('/reports/7').set('X-API-Key', READER).expect(200);
    await request(app).post('/mcp').set('X-API-Key', READER).send(call('delete_file')).expect(200);
    await request(app).get('/nowhere').set('X-API-Key', READER).expect(404);
    expect(brief(decisions)).toEqual([
      ['would_refuse', 'role_missing', 'GET /reports/:id'],
      ['would_refuse', 'role_missing', 'MCP tools/call delete_file'],
      ['would_refuse', 'route_denied', 'default'],
    ]);
  });
});

describe('access.log: refusals', () => {
  it('logs each refusal as one line through the given logger: outcome, reason, rule, mode; no key, no path', async () => {
    // An app of your own with no onDecision: the log is how it sees what its table refused.
    const { app, logger } = await serve({ ...ACCESS, log: 'refusals' }, false);
    await request(app).get('/reports/7?secret=s3cret').set('X-API-Key', READER).set('X-Request-Id', 'r-1').expect(403);
    await request(app).post('/mcp').set('X-API-Key', READER).send(call('delete_file')).expect(403);
    await request(app).get('/open').set('X-API-Key', 'wrong-key-0123456789abcdef').expect(401);
    await request(app).get('/guarded').set('X-API-Key', READER).expect(403);
    await request(app).get('/reports/7').set('X-API-Key', ADMIN).expect(200);
    const lines = logger.text.filter((line) => line.includes('access:'));
    expect(lines).toEqual([
      'info: access: forbidden role_missing rule="GET /reports/:id" method=api_key',
      'info: access: forbidden role_missing rule="MCP tools/call delete_file" method=api_key',
      'info: access: refused credentials_invalid rule="GET /open" method=api_key',
      'info: access: forbidden role_missing rule="GET /guarded" method=api_key',
    ]);
    expect(logger.text.join('\n')).not.toMatch(/s3cret|reader-key|wrong-key|\/reports\/7/);
  });

  it("with report_only, a would_refuse is one warn line: it replaces report_only's own", async () => {
    const { app, logger } = await serve({ ...ACCESS, report_only: true, log: 'refusals' }, false);
    await request(app).get('/reports/7').set('X-API-Key', READER).expect(200);
    expect(logger.text.filter((line) => line.includes('access'))).toEqual([
      'warn: access: would_refuse role_missing rule="GET /reports/:id" method=api_key',
    ]);
  });

  it('logs nothing without the setting (the default)', async () => {
    const { app, logger, decisions } = await serve(ACCESS);
    await request(app).get('/reports/7').set('X-API-Key', READER).expect(403);
    await request(app).get('/guarded').set('X-API-Key', READER).expect(403);
    expect(decisions).toHaveLength(2);
    expect(logger.text.filter((line) => line.includes('access:'))).toEqual([]);
  });
});
