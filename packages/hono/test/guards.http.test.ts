import { afterEach, describe, expect, it } from '@jest/globals';
import { serve, type ServerType } from '@hono/node-server';
import { createCaptureLogger } from '@authlayer/testkit';
import { Hono, type Context } from 'hono';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import authlayer, { type AuthDecision, type AuthlayerOptions } from '../src/index.js';

// `auth.requireAccess` where no authentication ran (a `public` route, or a route the middleware
// does not cover): its 401 is the request's one decision, heard as every other refusal is.

const KEY = 'k3y-for-the-hono-guards';
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

/** The middleware on `/api/*` only; a guard on a public route under it and on a route outside. */
async function served(options: Partial<AuthlayerOptions> = {}) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const auth = await authlayer({
    config: { auth: { mode: 'api_key' }, access: { 'GET /api/open': 'public' } },
    env: { SERVICE_API_KEY: KEY },
    logger,
    onDecision: (decision) => decisions.push(decision),
    ...options,
  });
  const app = new Hono();
  const answer = (c: Context) => c.json({ auth: c.get('auth') ?? null });
  const admin = auth.requireAccess({ roles: ['admin'] });
  app.use('/api/*', auth);
  app.get('/api/open', admin, answer);
  app.get('/outside/:id', admin, answer);
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  if (!server.listening) await once(server, 'listening');
  closing.push(async () => {
    if ('closeAllConnections' in server) server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await auth.close();
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, decisions, logger };
}

const refused = (rule: string) => ({
  outcome: 'refused',
  reason: 'credentials_missing',
  rule,
  userId: null,
  method: 'api_key',
  requestId: null,
  durationMs: expect.any(Number),
});

describe('a guard where no authentication ran', () => {
  it('on a public route: 401, reported as the decision under the route it guards', async () => {
    const { url, decisions } = await served();
    const res = await fetch(`${url}/api/open`, { headers: { 'X-API-Key': KEY } });
    expect([res.status, await res.text()]).toEqual([
      401,
      '{"error":"unauthorized","message":"no credentials were sent"}',
    ]);
    expect(decisions).toEqual([refused('GET /api/open')]);
  });

  it('on a route the middleware does not cover: 401, reported to the engine of the guard', async () => {
    const { url, decisions } = await served();
    const res = await fetch(`${url}/outside/7`, { headers: { 'X-API-Key': KEY } });
    expect(res.status).toBe(401);
    expect(decisions).toEqual([refused('GET /outside/:id')]);
  });

  it('a listener that throws on that 401 is a 500, logged without its message', async () => {
    const { url, logger } = await served({
      onDecision: () => {
        throw new Error('secret detail');
      },
    });
    const res = await fetch(`${url}/api/open`);
    expect([res.status, await res.text()]).toEqual([500, '{"error":"internal","message":"internal error"}']);
    expect(logger.text).toContain('error: the onDecision listener failed (Error)');
    expect(logger.text.join('\n')).not.toContain('secret detail');
  });
});
