import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createNodeWebSocket } from '@hono/node-ws';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startRedis,
  type RedisServer,
  type SigningKey,
} from '@authlayer/testkit';
import type { Server } from 'node:http';
import { once } from 'node:events';
import { WebSocket } from 'ws';
import type { AuthDecision } from '../src/index.js';
import { serveHono, type ServedHono } from './support/serve.js';

// `auth.hold(c, end)` with `@hono/node-ws` and the real `ws` client: the upgrade GET is judged by
// `app.use(auth)` (a refused one never reaches the route), and a held socket closes at its token's
// exp, at a revocation (on a real redis-server), and at a reload that takes its permission away.

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

let served: ServedHono & { origin: string; decisions: AuthDecision[] };
let reached = 0;

/** A Hono app with both socket routes through `@hono/node-ws`, on the clock `now` (default: real). */
async function wsApp(now?: () => number) {
  const decisions: AuthDecision[] = [];
  let inject: (server: Server) => void = () => undefined;
  const made = await serveHono(
    {
      config: configOf({ roles: ['reporter'] }),
      env: { JWT_SECRET: key.envValue },
      logger: createCaptureLogger(),
      onDecision: (decision) => decisions.push(decision),
      ...(now === undefined ? {} : { now }),
    },
    (app, auth) => {
      const { upgradeWebSocket, injectWebSocket } = createNodeWebSocket({ app });
      inject = injectWebSocket;
      for (const path of ['/ws/reports', '/ws/feed']) {
        app.get(
          path,
          upgradeWebSocket((c) => {
            let release = () => undefined as void;
            return {
              onOpen: (_event, ws) => {
                reached += 1;
                release = auth.hold(c, (reason) => ws.close(4401, reason));
                ws.send(`hello ${c.get('auth')?.userId}`);
              },
              onClose: () => release(),
            };
          }),
        );
      }
    },
    (server) => inject(server as Server),
  );
  return { ...made, origin: made.url.replace('http', 'ws'), decisions };
}

beforeAll(async () => {
  key = await createSigningKey('HS256');
  redis = await startRedis();
  served = await wsApp();
});
afterAll(async () => {
  await served.close();
  await redis.stop();
});

let serial = 0;
const tokenOf = (sub: string, exp: number, extra: object = {}) =>
  mintToken(key, { iss: ISSUER, aud: AUDIENCE, sub, jti: `j-${(serial += 1)}`, iat: exp - 7200, exp, ...extra });
const HOUR = () => Math.floor(Date.now() / 1000) + 3600;

async function open(path: string, token: string, at = served.origin) {
  const ws = new WebSocket(`${at}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const [greeting] = (await once(ws, 'message')) as [Buffer];
  return { ws, closed, greeting: greeting.toString() };
}

async function alive(ws: WebSocket): Promise<boolean> {
  if (ws.readyState !== WebSocket.OPEN) return false;
  ws.ping();
  await once(ws, 'pong');
  return true;
}

describe('auth.hold with @hono/node-ws', () => {
  it('judges the upgrade in the middleware: a refused one never reaches the route', async () => {
    const before = reached;
    served.decisions.length = 0;
    const ws = new WebSocket(`${served.origin}/ws/reports`, {
      headers: { Authorization: `Bearer ${await tokenOf('eve', HOUR())}` },
    });
    // Either event ends the wait: a socket let through opens (and fails here) rather than hanging.
    const refused = once(ws, 'unexpected-response').then(([, res]) => res as import('node:http').IncomingMessage);
    const res = await Promise.race([refused, once(ws, 'open').then(() => null)]);
    // @hono/node-ws writes the status line of the middleware's answer only (no challenge, no body).
    expect(res?.statusCode).toBe(403);
    res?.resume();
    expect(reached).toBe(before);
    expect(served.decisions.map((decision) => [decision.outcome, decision.reason])).toEqual([
      ['forbidden', 'role_missing'],
    ]);
  });

  it("closes at the token's exp by the middleware's clock, never before, with a decision 'ended'", async () => {
    // A pinned clock: a witness due one second earlier shows the schedule ran while the clock stood
    // just before exp and left the held socket open (whole seconds, leeway 0).
    const exp = Math.floor(Date.now() / 1000) + 3600;
    let clock = exp * 1000 - 1500;
    const pinned = await wsApp(() => clock);
    try {
      const held = await open('/ws/feed', await tokenOf('ada', exp), pinned.origin);
      expect(held.greeting).toBe('hello ada');
      const witness = await open('/ws/feed', await tokenOf('ada', exp - 1), pinned.origin);
      expect(pinned.auth.heldConnections).toBe(2);
      clock = exp * 1000 - 1;
      expect((await witness.closed).reason).toBe('token_expired');
      expect(await alive(held.ws)).toBe(true);
      clock = exp * 1000;
      expect(await held.closed).toEqual({ code: 4401, reason: 'token_expired' });
      expect(pinned.decisions.at(-1)).toMatchObject({ outcome: 'ended', reason: 'token_expired', userId: 'ada' });
    } finally {
      await pinned.close();
    }
  });

  it('closes at a revocation, and at a reload that takes the permission away (only that one)', async () => {
    const revoked = await open('/ws/feed', await tokenOf('grace', HOUR()));
    await served.auth.revoke('sub:grace');
    expect(await revoked.closed).toEqual({ code: 4401, reason: 'token_revoked' });
    const reports = await open('/ws/reports', await tokenOf('cy', HOUR(), { roles: ['reporter'] }));
    const feed = await open('/ws/feed', await tokenOf('cy', HOUR(), { roles: ['reporter'] }));
    await served.auth.reload(configOf({ roles: ['admin'] }));
    expect((await reports.closed).reason).toBe('role_missing');
    expect(await alive(feed.ws)).toBe(true);
    feed.ws.close();
    await feed.closed;
    while (served.auth.heldConnections !== 0) await new Promise((resolve) => setImmediate(resolve));
  });
});
