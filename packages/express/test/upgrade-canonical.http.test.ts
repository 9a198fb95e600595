import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { createAuthMiddleware, type AuthMiddleware } from '../src/index.js';

// `auth.upgrade` in front of a real `ws` server whose handler routes as the `ws` README does
// (`new URL(req.url, base).pathname`): WHATWG URL parsing resolves `..` and `%2e%2e`, turns `\`
// into `/`, drops `#...` and takes an absolute-form target's path, so a target judged as one path
// could be served as another. The two apps of the hostile probe: a role-protected socket beside a
// public prefix (`access.default: deny`), and one beside an authenticated prefix (`default:
// authenticated`). Every spelling, sent raw by each caller: a target that is not canonical is a 400
// `invalid_request` before authentication and never reaches the handler; no handler call serves a
// path whose rule refuses its caller.

const KEYS = { ops: 'ops-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
type Caller = keyof typeof KEYS | 'anonymous';
const CALLERS: readonly Caller[] = ['anonymous', 'plain', 'ops'];

interface Lab {
  readonly access: Record<string, unknown>;
  /** The socket a caller without the `ops` role must never open. */
  readonly guarded: string;
  /** The prefix the probe went through, and a path under it that the caller may open. */
  readonly through: string;
  /** Whether the table lets `caller` open the socket at `pathname` (as the handler resolved it). */
  mayOpen(pathname: string, caller: Caller): boolean;
}

const LABS: Record<string, Lab> = {
  'default deny, a public prefix': {
    access: { default: 'deny', 'GET /ws/public/*rest': 'public', 'GET /ws/ops': { roles: ['ops'] } },
    guarded: 'ws/ops',
    through: 'ws/public',
    mayOpen: (pathname, caller) => pathname.startsWith('/ws/public/') || (pathname === '/ws/ops' && caller === 'ops'),
  },
  'default authenticated, an authenticated prefix': {
    access: {
      default: 'authenticated',
      'GET /ws/admin': { roles: ['ops'] },
      'GET /ws/*rest': 'authenticated',
      'GET /pub': 'public',
    },
    guarded: 'ws/admin',
    through: 'ws/x',
    mayOpen: (pathname, caller) =>
      pathname === '/pub' || (pathname === '/ws/admin' ? caller === 'ops' : caller !== 'anonymous'),
  },
};

// Spellings of `..`, `.` and `/` that URL parsing, a proxy or a static server resolve or decode.
const DOTDOT = ['..', '%2e%2e', '%2E%2E', '.%2e', '%2e.', '.%2E', '%2E.', '..%00', '%2e%2e%00'];
const DOT = ['.', '%2e', '%2E'];
const SLASH = ['/', '//', '%2f', '%2F', '\\', '%5c', '%5C', '/;/', ';/'];

/** Targets that are not canonical and name `guarded` (no leading slash) by way of `through`. */
function nonCanonical(guarded: string, through: string): string[] {
  const [first, ...rest] = guarded.split('/');
  const last = rest.join('/');
  const out = new Set<string>();
  for (const dotdot of DOTDOT) {
    for (const slash of SLASH) out.add(`/${through}${slash}${dotdot}${slash}${last}`);
    out.add(`/${through}/y/../${dotdot}/${last}`);
    out.add(`/${through.toUpperCase()}/${dotdot}/${last}`);
  }
  for (const dot of DOT) {
    out.add(`/${dot}/${guarded}`);
    out.add(`/${first}/${dot}/${last}`);
    out.add(`/${through}/${dot}/../${last}`);
  }
  for (const slash of SLASH.slice(1)) out.add(`/${first}${slash}${last}`);
  for (const tail of ['#', '#x', '#/../../x', ';x=1', '%00', '%', '%zz', '%2', '/.', '/..']) {
    out.add(`/${guarded}${tail}`);
  }
  out.add(`//${guarded}`);
  out.add(`/${through}/y#/../../${last}`);
  out.add(`/${through}/y?#/../../${last}`);
  // An encoded unreserved character, each letter of the guarded path's last segment.
  for (let i = 0; i < last.length; i += 1) {
    const hex = last.charCodeAt(i).toString(16);
    for (const spelled of [hex, hex.toUpperCase()]) {
      out.add(`/${first}/${last.slice(0, i)}%${spelled}${last.slice(i + 1)}`);
    }
  }
  // Characters URL parsing percent-encodes: the handler would see another pathname.
  for (const char of ['"', '<', '>', '{', '}', '|', '^', '`', '[', ']']) out.add(`/${guarded}${char}`);
  // Absolute-form and asterisk-form.
  for (const origin of ['http://x', 'HTTP://x', 'https://x:1', 'ws://x', 'wss://x', 'http://x:80']) {
    out.add(`${origin}/${guarded}`);
    out.add(`${origin}/${guarded}?y`);
    out.add(`${origin}/${through}/../${last}`);
  }
  // (A target without a leading `/` and no scheme never gets here: Node's parser answers it.)
  out.add('*');
  return [...out];
}

/** A path as the table matches it, as Express routes: case-insensitive, one trailing `/` ignored. */
function asTableMatches(pathname: string): string {
  const lower = pathname.toLowerCase();
  return lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower;
}

// The hostile probe's targets as it sent them (ws-route.mjs, held.mjs).
const PROBES = [
  '/ws/ops',
  '/ws/public/../ops',
  '/ws/public/x/../../ops',
  '/ws/public/%2e%2e/ops',
  '/ws/public/..%2fops',
  '/ws/public/.%2e/ops',
  '/ws/ops#',
  '/ws/public/x#/../../ops',
  'http://x/ws/ops',
  'https://x:1/ws/ops?q',
  '/ws/public/..\\ops',
  '//x/ws/ops',
  '/ws/./ops',
  '/ws//ops',
  '/WS/OPS',
  '/ws/x',
  '/ws/admin',
  '/other',
  '/WS/ADMIN',
  '/ws/admin/',
  'http://x/ws/admin',
  'http://x/ws/admin?y',
  '/ws/admin#frag',
  '/ws/admin;x',
  '/pub/../ws/admin',
  '/ws/x/../admin',
];

interface Reached {
  readonly target: string;
  readonly pathname: string;
  readonly caller: string;
}

interface Served {
  readonly port: number;
  readonly auth: AuthMiddleware;
  readonly reached: Reached[];
  readonly decisions: unknown[];
  close(): Promise<void>;
}

async function serve(lab: Lab): Promise<Served> {
  const decisions: unknown[] = [];
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'api_key',
        api_keys: {
          keys: [
            { name: 'ops', env_var: 'OPS_KEY', roles: ['ops'] },
            { name: 'plain', env_var: 'PLAIN_KEY' },
          ],
        },
      },
      access: lab.access,
    },
    {
      env: { OPS_KEY: KEYS.ops, PLAIN_KEY: KEYS.plain },
      logger: createCaptureLogger(),
      onDecision: (decision) => void decisions.push(decision),
    },
  );
  const app = express();
  app.use(auth.access);
  const wss = new WebSocketServer({ noServer: true });
  const reached: Reached[] = [];
  const server: Server = createServer(app);
  server.on(
    'upgrade',
    auth.upgrade((req, socket, head) => {
      // As the `ws` README routes: the path WHATWG URL parsing makes of the target.
      const { pathname } = new URL(req.url!, 'wss://base.url');
      reached.push({ target: req.url!, pathname, caller: req.auth?.userId ?? 'anonymous' });
      wss.handleUpgrade(req, socket, head, (ws) => ws.close());
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    auth,
    reached,
    decisions,
    close: async () => {
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
    },
  };
}

/** A raw upgrade of `target` (sent as it is): the answer's status and body, once the server ends it. */
function rawUpgrade(port: number, target: string, caller: Caller): Promise<{ status: number; body: string }> {
  const key = caller === 'anonymous' ? '' : `X-API-Key: ${KEYS[caller]}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      // An opened socket stays open: its head is the whole answer.
      if (text.startsWith('HTTP/1.1 101 ') && text.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', done);
    socket.on('error', reject);
    socket.write(
      `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${key}` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
  });
}

function jsonOf(body: string): Record<string, unknown> | null {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
}

describe.each(Object.entries(LABS))('auth.upgrade before a handler that routes as the ws README (%s)', (_, lab) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(lab);
  });
  afterAll(() => served.close());

  /** Each handler call since `from` whose caller the table would refuse at the path it served. */
  const leaksSince = (from: number) =>
    served.reached
      .slice(from)
      .filter(({ pathname, caller }) => !lab.mayOpen(asTableMatches(pathname), caller as Caller));

  it('a target that is not canonical: 400 invalid_request before authentication, the handler never runs', async () => {
    const corpus = nonCanonical(lab.guarded, lab.through);
    expect(corpus.length).toBeGreaterThan(100);
    const [reached, decisions] = [served.reached.length, served.decisions.length];
    const wrong: string[] = [];
    for (const target of corpus) {
      for (const caller of CALLERS) {
        const { status, body } = await rawUpgrade(served.port, target, caller);
        const json = status === 400 ? jsonOf(body) : null;
        if (
          json?.error !== 'invalid_request' ||
          !String(json.message).startsWith('the request target is not in canonical form: ')
        ) {
          wrong.push(`${caller} ${target} -> ${status} ${body}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(served.reached.slice(reached)).toEqual([]);
    // Refused before authentication: no decision was made.
    expect(served.decisions.length).toBe(decisions);
  });

  it("the probe's targets: no caller reaches a handler that serves a path its rule refuses", async () => {
    const from = served.reached.length;
    for (const target of PROBES) {
      for (const caller of CALLERS) await rawUpgrade(served.port, target, caller);
    }
    expect(leaksSince(from)).toEqual([]);
    // Only canonical targets reached the handler, and it served the path the table judged.
    for (const { target, pathname } of served.reached.slice(from)) expect(target).toBe(pathname);
  });

  it('controls: canonical targets open for a caller the rule allows, 401 or 403 for the others', async () => {
    const from = served.reached.length;
    const guarded = `/${lab.guarded}`;
    const opened: number[] = [];
    const statuses = async (target: string) => {
      const got = await Promise.all(
        CALLERS.map(async (caller) => (await rawUpgrade(served.port, target, caller)).status),
      );
      opened.push(...got.filter((status) => status === 101));
      return got;
    };
    expect(await statuses(guarded)).toEqual([401, 403, 101]);
    expect(await statuses(`${guarded}?next=../x&y=%2e%2e`)).toEqual([401, 403, 101]);
    const through = `/${lab.through}/y`;
    const open = lab.mayOpen(through, 'anonymous') ? 101 : 401;
    expect(await statuses(through)).toEqual([open, 101, 101]);
    expect(await statuses(`/${lab.through}/a%20b`)).toEqual([open, 101, 101]);
    expect(leaksSince(from)).toEqual([]);
    expect(served.reached.length - from).toBe(opened.length);
  });
});
