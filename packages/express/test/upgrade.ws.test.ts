import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { createAuthMiddleware, type AuthDecision, type AuthMiddleware, type UpgradeRequest } from '../src/index.js';

// `auth.upgrade` with the real `ws` server and client: an upgrade is judged as a GET of its URL by
// the same table, and a refused one gets on its socket the answer a plain GET gets over HTTP.

const KEYS = { admin: 'admin-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
const env = { ADMIN_KEY: KEYS.admin, PLAIN_KEY: KEYS.plain };
const CONFIG = {
  auth: {
    mode: 'api_key',
    api_keys: {
      keys: [
        { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
        { name: 'plain', env_var: 'PLAIN_KEY' },
      ],
    },
  },
  roles: [{ name: 'admin', permissions: ['ops'] }],
  access: {
    'GET /ws/admin': { roles: ['admin'] },
    'GET /ws/internal': 'deny',
    'GET /ws/public': 'public',
  },
};

interface Served {
  readonly origin: string;
  readonly auth: AuthMiddleware;
  readonly decisions: AuthDecision[];
  /** What the server's `connection` listener saw: each request's `auth`. */
  readonly connected: (UpgradeRequest['auth'] | null)[];
  /** How many upgrades reached the handler. */
  handled: number;
  close(): Promise<void>;
}

async function serve(onDecision?: (decision: AuthDecision) => void): Promise<Served> {
  const decisions: AuthDecision[] = [];
  const auth = await createAuthMiddleware(CONFIG, {
    env,
    logger: createCaptureLogger(),
    onDecision: (decision) => {
      decisions.push(decision);
      onDecision?.(decision);
    },
  });
  const app = express();
  app.use(auth.access);
  app.get('/ws/*path', (req, res) => res.json({ auth: req.auth ?? null }));
  const server: Server = createServer(app);
  const wss = new WebSocketServer({ noServer: true });
  const served: Served = {
    origin: '',
    auth,
    decisions,
    connected: [],
    handled: 0,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
    },
  };
  wss.on('connection', (ws, req: UpgradeRequest) => {
    served.connected.push(req.auth ?? null);
    ws.send('hello');
  });
  server.on(
    'upgrade',
    auth.upgrade((req, socket, head) => {
      served.handled += 1;
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(served, { origin: `http://127.0.0.1:${port}` });
}

interface Refused {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** A `ws` client's upgrade: the message it got once open, or the answer of 'unexpected-response'. */
function upgrade(origin: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ opened: string } | { refused: Refused }>((resolve, reject) => {
    const ws = new WebSocket(`${origin.replace('http', 'ws')}${path}`, { headers });
    ws.once('message', (data: Buffer) => {
      ws.close();
      resolve({ opened: data.toString() });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ refused: { status: res.statusCode!, headers: res.headers, body } }));
    });
    ws.once('error', reject);
  });
}

/** The same path over plain HTTP. */
async function get(origin: string, path: string, headers: Record<string, string> = {}): Promise<Refused> {
  const res = await fetch(`${origin}${path}`, { headers });
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: await res.text(),
  };
}

/** The refused upgrade and the plain GET agree on the status, the challenges and the body. */
async function expectSameRefusal(served: Served, path: string, headers: Record<string, string> = {}) {
  const got = await upgrade(served.origin, path, headers);
  const http = await get(served.origin, path, headers);
  expect('refused' in got).toBe(true);
  const { refused } = got as { refused: Refused };
  expect(refused.status).toBe(http.status);
  expect(refused.body).toBe(http.body);
  for (const name of ['www-authenticate', 'retry-after', 'content-type', 'content-length']) {
    expect(refused.headers[name]).toBe(http.headers[name]);
  }
  expect(refused.headers.connection).toBe('close');
  return refused;
}

describe('auth.upgrade with the ws server and client', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve();
  });
  afterAll(() => served.close());

  it('no credential: 401 with the same WWW-Authenticate and body as a GET, the handler never runs', async () => {
    const before = served.handled;
    const refused = await expectSameRefusal(served, '/ws/feed');
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toBeDefined();
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'unauthorized' });
    expect(served.handled).toBe(before);
  });

  it('a wrong key: 401 as over HTTP', async () => {
    const refused = await expectSameRefusal(served, '/ws/feed', { 'X-API-Key': 'wrong-key-0123456789abcdef' });
    expect(refused.status).toBe(401);
  });

  it('a role rule refuses: 403 as over HTTP', async () => {
    const refused = await expectSameRefusal(served, '/ws/admin', { 'X-API-Key': KEYS.plain });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'forbidden' });
  });

  it('deny: 403 as over HTTP, even with a valid key', async () => {
    const before = served.handled;
    const refused = await expectSameRefusal(served, '/ws/internal', { 'X-API-Key': KEYS.admin });
    expect(refused.status).toBe(403);
    expect(served.handled).toBe(before);
  });

  it('the query string is not the route: /ws/internal?x=1 is denied too', async () => {
    const refused = await expectSameRefusal(served, '/ws/internal?x=1', { 'X-API-Key': KEYS.admin });
    expect(refused.status).toBe(403);
  });

  it('a valid API key: the connection opens and the server sees req.auth', async () => {
    const count = served.connected.length;
    expect(await upgrade(served.origin, '/ws/feed', { 'X-API-Key': KEYS.plain })).toEqual({ opened: 'hello' });
    expect(served.connected[count]).toMatchObject({ userId: 'plain', method: 'api_key' });
  });

  it('a role rule allows: the connection opens', async () => {
    const count = served.connected.length;
    expect(await upgrade(served.origin, '/ws/admin', { 'X-API-Key': KEYS.admin })).toEqual({ opened: 'hello' });
    expect(served.connected[count]).toMatchObject({ userId: 'admin' });
  });

  it('a public route passes without credentials, req.auth unset', async () => {
    const count = served.connected.length;
    expect(await upgrade(served.origin, '/ws/public')).toEqual({ opened: 'hello' });
    expect(served.connected[count]).toBeNull();
  });

  it('each upgrade is one decision', async () => {
    const count = served.decisions.length;
    await upgrade(served.origin, '/ws/feed', { 'X-API-Key': KEYS.plain });
    await upgrade(served.origin, '/ws/feed');
    expect(served.decisions.slice(count).map((decision) => decision.outcome)).toEqual(['allowed', 'refused']);
  });

  it('the refusal on the socket is the status line, the headers and the JSON body, then the end', async () => {
    const { port } = new URL(served.origin);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write(
        'GET /ws/internal HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
    const http = await get(served.origin, '/ws/internal');
    expect(raw.startsWith('HTTP/1.1 403 Forbidden\r\n')).toBe(true);
    expect(raw).toContain('\r\nContent-Type: application/json; charset=utf-8\r\n');
    expect(raw).toContain('\r\nConnection: close\r\n');
    expect(raw.endsWith(`\r\n\r\n${http.body}`)).toBe(true);
    expect(JSON.parse(http.body)).toMatchObject({ error: 'forbidden' });
  });
});

describe('auth.upgrade when an onDecision listener throws', () => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(() => {
      throw new Error('listener broke');
    });
  });
  afterAll(() => served.close());

  it('a refusal whose listener throws: 500 internal on the socket, never a crash', async () => {
    const got = await upgrade(served.origin, '/ws/feed');
    expect(got).toMatchObject({ refused: { status: 500 } });
    expect(JSON.parse((got as { refused: Refused }).refused.body)).toEqual({
      error: 'internal',
      message: 'internal error',
    });
  });

  it('a deny whose listener throws: 500 as well', async () => {
    expect(await upgrade(served.origin, '/ws/internal')).toMatchObject({ refused: { status: 500 } });
  });

  it('an allowed upgrade whose listener throws still opens (the decision is logged, as over HTTP)', async () => {
    expect(await upgrade(served.origin, '/ws/feed', { 'X-API-Key': KEYS.plain })).toEqual({ opened: 'hello' });
  });
});

describe('auth.upgrade(handler)', () => {
  it('refuses a handler that is not a function', async () => {
    const auth = await createAuthMiddleware(CONFIG, { env, logger: createCaptureLogger() });
    expect(() => auth.upgrade(undefined as never)).toThrow(TypeError);
    await auth.close();
  });
});
