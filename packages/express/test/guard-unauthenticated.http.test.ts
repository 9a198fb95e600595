import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express, { type RequestHandler } from 'express';
import request from 'supertest';
import {
  authenticated,
  createAuthMiddleware,
  errorHandler,
  requireAccess,
  requireRoles,
  requireScopes,
  type AuthDecision,
} from '../src/index.js';

// A guard on a route where no authentication ran (a `public` route of the table): its 401 is the
// request's one decision, heard as every other refusal is (onDecision, access.log).

const KEY = 'k3y-for-the-unauthenticated-guards';
const ok: RequestHandler = (req, res) => res.json(req.auth ?? null);

async function appWith(options: { onDecision?: (decision: AuthDecision) => void; log?: boolean } = {}) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(
    {
      auth: { mode: 'api_key' },
      access: {
        'GET /open/roles': 'public',
        'GET /open/scopes': 'public',
        'GET /open/rule/:id': 'public',
        'GET /open/handler': 'public',
        'GET /open/plain': 'public',
        ...(options.log === true ? { log: 'refusals' } : {}),
      },
    },
    { env: { SERVICE_API_KEY: KEY }, logger, onDecision: options.onDecision ?? ((d) => decisions.push(d)) },
  );
  const app = express();
  app.use(auth.access);
  app.get('/open/roles', requireRoles('admin'), ok);
  app.get('/open/scopes', requireScopes('reports:read'), ok);
  app.get('/open/rule/:id', requireAccess({ roles: ['admin'] }), ok);
  app.get('/open/handler', authenticated(ok));
  app.get('/open/plain', ok);
  // No authlayer middleware sees this app's requests: no engine hears of its guard.
  const bare = express();
  bare.get('/guarded', requireRoles('admin'), ok);
  app.use(errorHandler({ logger }));
  return { app, bare, decisions, logger };
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
  it('answers 401, reported as the decision under the route it guards (requireRoles, requireScopes, requireAccess)', async () => {
    const { app, decisions } = await appWith();
    for (const path of ['/open/roles', '/open/scopes', '/open/rule/7']) {
      const res = await request(app).get(path).set('X-API-Key', KEY).expect(401);
      expect(res.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
    }
    expect(decisions).toEqual([refused('GET /open/roles'), refused('GET /open/scopes'), refused('GET /open/rule/:id')]);
  });

  it('authenticated() answers the same 401, reported the same way', async () => {
    const { app, decisions } = await appWith();
    await request(app).get('/open/handler').expect(401);
    expect(decisions).toEqual([refused('GET /open/handler')]);
  });

  it('a public route without a guard still decides nothing', async () => {
    const { app, decisions } = await appWith();
    await request(app).get('/open/plain').expect(200);
    expect(decisions).toEqual([]);
  });

  it('access.log: refusals logs the 401 as one line, as it logs every refusal', async () => {
    const { app, logger } = await appWith({ log: true, onDecision: () => undefined });
    await request(app).get('/open/roles').set('X-API-Key', KEY).expect(401);
    expect(logger.text.filter((line) => line.includes('access:'))).toEqual([
      'info: access: refused credentials_missing rule="GET /open/roles" method=api_key',
    ]);
    expect(logger.text.join('\n')).not.toContain(KEY);
  });

  it('a listener that throws on that 401 is a 500, as on every refusal', async () => {
    const { app, logger } = await appWith({
      onDecision: () => {
        throw new Error('listener down');
      },
    });
    const res = await request(app).get('/open/roles').expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
    expect(logger.text).toContain('error: internal error (Error) on GET /open/roles');
    expect(logger.text.join('\n')).not.toContain('listener down');
  });

  it('without any authlayer middleware before it, still 401 (no engine saw the request to hear of it)', async () => {
    const { bare, decisions } = await appWith();
    await request(bare).get('/guarded').set('X-API-Key', KEY).expect(401);
    expect(decisions).toEqual([]);
  });
});
