import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import websocket from '@fastify/websocket';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startRedis,
  type RedisServer,
  type SigningKey,
} from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { once } from 'node:events';
import { WebSocket } from 'ws';
import authlayer, { type AuthDecision } from '../src/index.js';

// `app.authlayer.hold` with @fastify/websocket and the real `ws` client: the upgrade GET is judged
// by the plugin's hook (a refused one never reaches the route), and a held socket closes at its
// token's exp, at a revocation, and at a reload that takes its permission away.

const [ISSUER, AUDIENCE] = ['https://idp.example.com', 'ws-api'];
let key: SigningKey;
let redis: RedisServer;
const configOf = (reportsRule: unknown) => ({
  auth: {
    mode: 'jwt',
    jwt: { public_key_env: 'JWT_SECRET', algorithms: ['HS256'], issuer: ISSUER, audience: AUDIENCE, leeway_seconds: 0 },
  },
  access: { 'GET /ws/reports': reportsRule, 'GET /ws/feed': 'authenticated' },
  revocation: { store: redis.url },
});

let app: FastifyInstance;
let origin: string;
let reached = 0;

/** A Fastify app with both socket routes, on the middleware's clock `now` (default: the real one). */
async function wsApp(now?: () => number) {
  const made = Fastify();
  const seen: AuthDecision[] = [];
  await made.register(websocket);
  await made.register(authlayer, {
    config: configOf({ roles: ['reporter'] }),
    env: { JWT_SECRET: key.envValue },
    logger: createCaptureLogger(),
    onDecision: (decision) => seen.push(decision),
    ...(now === undefined ? {} : { now }),
  });
  for (const url of ['/ws/reports', '/ws/feed']) {
    made.get(url, { websocket: true }, (socket, request) => {
      reached += 1;
      const release = made.authlayer.hold(request, (reason) => socket.close(4401, reason));
      socket.on('close', release);
      socket.send(`hello ${request.auth?.userId}`);
    });
  }
  const at = (await made.listen({ port: 0, host: '127.0.0.1' })).replace('http', 'ws');
  return { app: made, origin: at, decisions: seen };
}

beforeAll(async () => {
  key = await createSigningKey('HS256');
  redis = await startRedis();
  ({ app, origin } = await wsApp());
});
afterAll(async () => {
  await app.close();
  await redis.stop();
});

let serial = 0;
const tokenOf = (sub: string, exp: number, extra: object = {}) =>
  mintToken(key, {
    iss: ISSUER,
    aud: AUDIENCE,
    sub,
    jti: `j-${(serial += 1)}`,
    iat: Math.floor(Date.now() / 1000),
    exp,
    ...extra,
  });
const HOUR = () => Math.floor(Date.now() / 1000) + 3600;

async function open(path: string, token: string, at = origin) {
  const ws = new WebSocket(`${at}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const [greeting] = (await once(ws, 'message')) as [Buffer];
  return { ws, closed, greeting: greeting.toString() };
}

describe('app.authlayer.hold with @fastify/websocket', () => {
  it('judges the upgrade in the hook: a refused one never reaches the route, with the HTTP answer', async () => {
    const before = reached;
    const ws = new WebSocket(`${origin}/ws/reports`, {
      headers: { Authorization: `Bearer ${await tokenOf('eve', HOUR())}` },
    });
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, import('node:http').IncomingMessage];
    expect(res.statusCode).toBe(403);
    res.resume();
    expect(reached).toBe(before);
  });

  it("closes at the token's exp by the plugin's clock, never before, with a decision 'ended'", async () => {
    // A pinned clock, so no request meets an expired token on a slow machine. Whole seconds, as
    // the schedule keeps them (leeway 0): a witness due one second earlier shows that the
    // schedule ran while the clock stood just before exp, and left the held socket open.
    const exp = Math.floor(Date.now() / 1000) + 3600;
    let clock = exp * 1000 - 1500;
    const pinned = await wsApp(() => clock);
    try {
      const held = await open('/ws/feed', await tokenOf('ada', exp), pinned.origin);
      expect(held.greeting).toBe('hello ada');
      const witness = await open('/ws/feed', await tokenOf('ada', exp - 1), pinned.origin);
      expect(pinned.app.authlayer.heldConnections).toBe(2);
      clock = exp * 1000 - 1;
      expect((await witness.closed).reason).toBe('token_expired');
      expect(await alive(held.ws)).toBe(true);
      clock = exp * 1000;
      // The contract's bound (within 1 s of exp), with headroom: measured from the event (the
      // clock reached exp), ten times the bound, as a loaded 2-core machine runs ten times slower
      // (jest.preset.js). The schedule's own timing is the engine's end-schedule.test.ts's.
      const reachedExp = performance.now();
      const { code, reason } = await held.closed;
      expect(performance.now() - reachedExp).toBeLessThan(10 * 1000);
      expect([code, reason]).toEqual([4401, 'token_expired']);
      expect(pinned.decisions.at(-1)).toMatchObject({ outcome: 'ended', reason: 'token_expired', userId: 'ada' });
    } finally {
      await pinned.app.close();
    }
  });

  it('closes at a revocation, and at a reload that takes the permission away (only that one)', async () => {
    const revoked = await open('/ws/feed', await tokenOf('grace', HOUR()));
    await app.authlayer.revoke('sub:grace');
    expect((await revoked.closed).reason).toBe('token_revoked');
    const reports = await open('/ws/reports', await tokenOf('cy', HOUR(), { roles: ['reporter'] }));
    const feed = await open('/ws/feed', await tokenOf('cy', HOUR(), { roles: ['reporter'] }));
    await app.authlayer.reload(configOf({ roles: ['admin'] }));
    expect((await reports.closed).reason).toBe('role_missing');
    expect(await alive(feed.ws)).toBe(true);
    feed.ws.close();
    await feed.closed;
    while (app.authlayer.heldConnections !== 0) await new Promise((resolve) => setImmediate(resolve));
  });
});

async function alive(ws: WebSocket): Promise<boolean> {
  if (ws.readyState !== WebSocket.OPEN) return false;
  ws.ping();
  await once(ws, 'pong');
  return true;
}
