import { afterEach, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { call } from './support/call.js';
import authlayer from '../src/index.js';

// `access.log: refusals` on Fastify: one line per decision that refuses, through the plugin's
// logger, naming the key that decided; none without the setting. No onDecision: an app of its own.

const READER = 'reader-key-0123456789abcdef';
const env = { READER_KEY: READER };
const keys = [{ name: 'reader', env_var: 'READER_KEY', roles: ['reader'] }];
const ACCESS = {
  'GET /reports/:id': { roles: ['admin'] },
  'GET /open': 'authenticated',
  'GET /guarded': 'authenticated',
};
const opened: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((app) => app.close()));
});

async function appWith(access: object) {
  const app = Fastify();
  opened.push(app);
  const logger = createCaptureLogger();
  await app.register(authlayer, { config: { auth: { mode: 'api_key', api_keys: { keys } }, access }, env, logger });
  const ok = async () => ({ ok: true });
  app.get('/reports/:id', ok);
  app.get('/open', ok);
  app.get('/guarded', { preHandler: app.authlayer.requireAccess({ roles: ['admin'] }) }, ok);
  app.get('/elsewhere', ok);
  await app.ready();
  return { app, logger };
}

const reader = { 'x-api-key': READER };
const accessLines = (logger: ReturnType<typeof createCaptureLogger>) =>
  logger.text.filter((line) => line.includes('access:'));

describe('access.log: refusals (Fastify)', () => {
  it('logs each refusal as one line: outcome, reason, the key that decided, the mode', async () => {
    const { app, logger } = await appWith({ ...ACCESS, default: 'deny', log: 'refusals' });
    expect((await call(app, { method: 'GET', url: '/reports/7?s=s3cret', headers: reader })).statusCode).toBe(403);
    expect((await call(app, { method: 'GET', url: '/open' })).statusCode).toBe(401);
    expect((await call(app, { method: 'GET', url: '/guarded', headers: reader })).statusCode).toBe(403);
    expect((await call(app, { method: 'GET', url: '/elsewhere', headers: reader })).statusCode).toBe(403);
    expect(accessLines(logger)).toEqual([
      // Fastify's own request ids (req-1, ...) name each request.
      'info: access: forbidden role_missing rule="GET /reports/:id" method=api_key request_id=req-1',
      'info: access: refused credentials_missing rule="GET /open" method=api_key request_id=req-2',
      'info: access: forbidden role_missing rule="GET /guarded" method=api_key request_id=req-3',
      'info: access: forbidden route_denied rule="default" method=api_key request_id=req-4',
    ]);
    expect(logger.text.join('\n')).not.toMatch(/s3cret|reader-key|\/reports\/7/);
  });

  it('logs nothing without the setting (the default)', async () => {
    const { app, logger } = await appWith(ACCESS);
    expect((await call(app, { method: 'GET', url: '/reports/7', headers: reader })).statusCode).toBe(403);
    expect((await call(app, { method: 'GET', url: '/guarded', headers: reader })).statusCode).toBe(403);
    expect(accessLines(logger)).toEqual([]);
  });
});
