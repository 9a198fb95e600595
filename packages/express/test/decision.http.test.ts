import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import type { CreateHandler } from '@authlayer/core';
import express from 'express';
import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import {
  clientAddress,
  createAuthMiddleware,
  errorHandler,
  requestId,
  requireAccess,
  requireRoles,
  secretHeaders,
  type AuthDecision,
  type AuthMiddlewareOptions,
} from '../src/index.js';

const KEY = 'k3y-for-the-decision-tests';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function app(options: AuthMiddlewareOptions = {}) {
  const decisions: AuthDecision[] = [];
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(
    { auth: { mode: 'api_key' } },
    { env: { SERVICE_API_KEY: KEY }, logger, onDecision: (d) => decisions.push(d), ...options },
  );
  const server = express();
  server.use(requestId());
  server.post('/invoke', auth, (_req, res) => res.json({ ok: true }));
  server.use(errorHandler({ logger }));
  return { server, decisions, logger };
}

describe('one decision per request (onDecision)', () => {
  it('reports an allowed request once, with the audit fields', async () => {
    const { server, decisions } = await app();
    await request(server).post('/invoke').set('X-API-Key', KEY).set('X-Request-Id', 'req-1').expect(200);
    expect(decisions).toEqual([
      {
        outcome: 'allowed',
        method: 'api_key',
        reason: null,
        rule: null,
        userId: 'SERVICE_API_KEY',
        requestId: 'req-1',
        durationMs: expect.any(Number),
      },
    ]);
    expect(decisions[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a refusal with its reason and no identity', async () => {
    const { server, decisions } = await app();
    await request(server).post('/invoke').set('X-API-Key', 'nope').expect(401);
    await request(server).post('/invoke').expect(401);
    expect(decisions.map(({ outcome, reason, userId }) => ({ outcome, reason, userId }))).toEqual([
      { outcome: 'refused', reason: 'credentials_invalid', userId: null },
      { outcome: 'refused', reason: 'credentials_missing', userId: null },
    ]);
  });

  it('reports a handler that breaks its contract as an error, and answers 500', async () => {
    const createHandler: CreateHandler = async () => ({
      method: 'api_key',
      authenticate: () => Promise.reject(new TypeError('bug')),
    });
    const { server, decisions, logger } = await app({ importModule: async () => ({ createHandler }) });
    await request(server).post('/invoke').expect(500);
    expect(decisions.map((d) => [d.outcome, d.reason])).toEqual([['error', 'handler_failed']]);
    expect(logger.text).toEqual(['error: the POST /invoke handler failed (TypeError)']);
  });

  it('turns a listener that throws on a refusal into a 500; on an allowed request (reported as the answer starts) into an error line; never a crash', async () => {
    const { server, logger } = await app({
      onDecision: () => {
        throw new Error('listener bug');
      },
    });
    const res = await request(server).post('/invoke').set('X-API-Key', 'wrong').expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
    await request(server).post('/invoke').set('X-API-Key', KEY).expect(200);
    expect(logger.text).toContain('error: the onDecision listener failed (Error)');
  });
});

describe("a guard's refusal is the request's one decision", () => {
  const KEYS = { admin: 'admin-key-for-the-guard-decisions', plain: 'plain-key-for-the-guard-decisions' };
  async function guarded(options: AuthMiddlewareOptions = {}) {
    const decisions: AuthDecision[] = [];
    const logger = createCaptureLogger();
    const auth = await createAuthMiddleware(
      {
        auth: {
          mode: 'api_key',
          api_keys: {
            keys: [
              { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
              { name: 'plain', env_var: 'PLAIN_KEY' },
            ],
          },
        },
        roles: [{ name: 'admin', permissions: ['reports:read'] }],
        access: { 'GET /open': 'public' },
      },
      {
        env: { ADMIN_KEY: KEYS.admin, PLAIN_KEY: KEYS.plain },
        logger,
        onDecision: (d) => decisions.push(d),
        ...options,
      },
    );
    const server = express();
    const ok = (_req: express.Request, res: express.Response) => void res.json({ ok: true });
    server.get('/x', auth, requireRoles('admin'), ok);
    server.get('/rule', auth, express.json(), requireAccess({ permissions: ['reports:read'] }), ok);
    server.get('/maybe', auth.optional, requireRoles('admin'), ok);
    const tabled = express.Router();
    tabled.use(auth.access);
    tabled.get('/table/x', requireRoles('admin'), ok);
    server.use(tabled);
    server.use(errorHandler({ logger }));
    return { server, decisions, logger };
  }
  const brief = (decisions: AuthDecision[]) =>
    decisions.map(({ outcome, reason, userId }) => [outcome, reason, userId]);

  it('requireRoles after auth: 403 is reported forbidden role_missing, once', async () => {
    const { server, decisions } = await guarded();
    await request(server).get('/x').set('X-API-Key', KEYS.plain).expect(403);
    expect(brief(decisions)).toEqual([['forbidden', 'role_missing', 'plain']]);
    await request(server).get('/x').set('X-API-Key', KEYS.admin).expect(200);
    expect(brief(decisions)).toEqual([
      ['forbidden', 'role_missing', 'plain'],
      ['allowed', null, 'admin'],
    ]);
    expect(decisions[0]).toMatchObject({ method: 'api_key', durationMs: expect.any(Number) });
  });

  it('requireAccess after a body parser, auth.access then a guard, auth.optional then a guard: one decision each', async () => {
    const { server, decisions } = await guarded();
    await request(server).get('/rule').set('X-API-Key', KEYS.plain).expect(403);
    await request(server).get('/table/x').set('X-API-Key', KEYS.plain).expect(403);
    await request(server).get('/maybe').expect(401);
    await request(server).get('/maybe').set('X-API-Key', KEYS.plain).expect(403);
    expect(brief(decisions)).toEqual([
      ['forbidden', 'permission_missing', 'plain'],
      ['forbidden', 'role_missing', 'plain'],
      ['refused', 'credentials_missing', null],
      ['forbidden', 'role_missing', 'plain'],
    ]);
  });

  it("a listener that throws on a guard's refusal is a 500", async () => {
    const { server } = await guarded({
      onDecision: () => {
        throw new Error('listener bug');
      },
    });
    const res = await request(server).get('/x').set('X-API-Key', KEYS.plain).expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
  });

  it("a listener that throws on the table's deny is a 500, as on every decision", async () => {
    const logger = createCaptureLogger();
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key' }, access: { 'GET /closed': 'deny' } },
      {
        env: { SERVICE_API_KEY: KEY },
        logger,
        onDecision: () => {
          throw new Error('listener bug');
        },
      },
    );
    const server = express();
    server.use(auth.access);
    server.get('/closed', (_req, res) => res.json({ ok: true }));
    server.use(errorHandler({ logger }));
    const res = await request(server).get('/closed').expect(500);
    expect(res.body).toEqual({ error: 'internal', message: 'internal error' });
  });
});

describe('requestId()', () => {
  it('echoes a plain X-Request-Id', async () => {
    const { server } = await app();
    const res = await request(server).post('/invoke').set('X-Request-Id', 'abc.DEF_1:2-3');
    expect(res.headers['x-request-id']).toBe('abc.DEF_1:2-3');
  });

  it.each([
    ['missing', undefined],
    ['too long', 'a'.repeat(129)],
    ['with spaces', 'a b'],
    ['with quotes', 'x"y'],
  ])('makes a new id when the given one is %s', async (_name, given) => {
    const { server, decisions } = await app();
    const req = request(server).post('/invoke');
    if (given !== undefined) void req.set('X-Request-Id', given);
    const res = await req;
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(decisions[0]!.requestId).toBe(res.headers['x-request-id']);
  });
});

describe('helpers for operators', () => {
  it('secretHeaders lists Authorization, Cookie and the configured API key header', async () => {
    const { parseAuthConfig } = await import('@authlayer/core');
    expect(secretHeaders(parseAuthConfig({ auth: { api_keys: { header: 'X-Partner-Key' } } }))).toEqual([
      'authorization',
      'proxy-authorization',
      'cookie',
      'x-api-key',
      'x-partner-key',
    ]);
  });

  it.each([
    ['::ffff:10.1.2.3', false, {}, '10.1.2.3'],
    ['::1', false, { 'x-forwarded-for': '203.0.113.1' }, '0:0:0:0::/64'],
    // One proxy (true or 1): the entry it appended, never the client's own entries to its left.
    ['10.0.0.2', true, { 'x-forwarded-for': ['203.0.113.1, 10.0.0.1'] }, '10.0.0.1'],
    ['10.0.0.2', 1, { 'x-forwarded-for': ['forged', '198.51.100.7'] }, '198.51.100.7'],
    ['10.0.0.2', 2, { 'x-forwarded-for': '192.0.2.1, 198.51.100.7, 10.0.0.1' }, '198.51.100.7'],
    ['10.0.0.2', 3, { 'x-forwarded-for': '198.51.100.7, 10.0.0.1' }, '198.51.100.7'],
    ['10.0.0.2', 0, { 'x-forwarded-for': '198.51.100.7' }, '10.0.0.2'],
    ['10.0.0.2', true, { 'x-forwarded-for': ' ' }, '10.0.0.2'],
    // Spellings of one address are one bucket; what is not an address counts as the peer.
    ['10.0.0.2', true, { 'x-forwarded-for': '198.51.100.7:5555' }, '198.51.100.7'],
    ['10.0.0.2', true, { 'x-forwarded-for': '::ffff:198.51.100.7' }, '198.51.100.7'],
    ['10.0.0.2', true, { 'x-forwarded-for': '198.51.100.07' }, '10.0.0.2'],
    ['10.0.0.2', true, { 'x-forwarded-for': '[2001:db8:1:2::5]:443' }, '2001:db8:1:2::/64'],
    ['2001:DB8:1:2:aa:bb:cc:dd', false, {}, '2001:db8:1:2::/64'],
    ['fe80::1%eth0', false, {}, 'fe80:0:0:0::/64'],
    ['::1.2.3.4', false, {}, '0:0:0:0::/64'],
    ['1::', false, {}, '1:0:0:0::/64'],
    [undefined, false, {}, 'unknown'],
  ])('clientAddress(%s, trust_proxy %s, %j) is %s', (remoteAddress, trustProxy, headers, expected) => {
    const req = { socket: { remoteAddress }, headers } as unknown as IncomingMessage;
    expect(clientAddress(req, trustProxy)).toBe(expected);
  });
});
