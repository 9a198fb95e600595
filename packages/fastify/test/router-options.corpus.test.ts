import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import authlayer from '../src/index.js';

// Fastify's router decides which route a request reaches (its case, trailing slash and duplicate
// slash options); the plugin applies the rule of the route it chose. A generated corpus of path
// spellings, sent raw, under each router option: every request that reached a handler had that
// route's rule applied to its caller.

const KEYS = { admin: 'admin-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
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
  access: {
    // Not deny: a request judged by another route's rule (or none) would show as a leak.
    default: 'authenticated',
    'GET /admin/reports': { roles: ['admin'] },
    'GET /users/:id/profile': { roles: ['admin'] },
    'GET /files/:id': 'deny',
    'GET /public': 'public',
  },
};
/** Who may reach each route: its rule, as a test of the caller. */
const MAY: Record<string, (caller: keyof typeof CALLERS) => boolean> = {
  '/admin/reports': (caller) => caller === 'admin',
  '/users/:id/profile': (caller) => caller === 'admin',
  '/files/:id': () => false,
  '/public': () => true,
};
const CALLERS = {
  anonymous: {},
  plain: { 'X-API-Key': KEYS.plain },
  admin: { 'X-API-Key': KEYS.admin },
} as const;

const OPTIONS = {
  default: {},
  caseSensitive: { caseSensitive: false },
  ignoreTrailingSlash: { ignoreTrailingSlash: true },
  ignoreDuplicateSlashes: { ignoreDuplicateSlashes: true },
  all: { caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
} as const;

/** Spellings of a path: case, slashes, dot segments, encodings, separators, and pairs of them. */
function spellingsOf(path: string): string[] {
  const one = (p: string): string[] => {
    const segments = p.split('/').slice(1);
    const encodeFirst = (s: string) => s.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
    return [
      p,
      p.toUpperCase(),
      p.replace(/\/(\w)/g, (_m, c: string) => `/${c.toUpperCase()}`),
      `${p}/`,
      `/${p}`,
      p.replace(/\//g, '//'),
      `${p}//`,
      p.replace(/\/([^/]*)$/, '//$1'),
      `/./${p.slice(1)}`,
      `/public/../${p.slice(1)}`,
      `/public/%2e%2e/${p.slice(1)}`,
      `/public/%2E%2E/${p.slice(1)}`,
      `/x/..${p}`,
      p.replace(/\/(?=[^/]*$)/, '%2F'),
      p.replace(/\/(?=[^/]*$)/, '%2f'),
      p.replace(/\//g, '\\'),
      `${p};x=1`,
      `/${segments[0] ?? ''};${p.slice((segments[0] ?? '').length + 1)}`,
      `${p}?a=1`,
      `${p}#f`,
      `${p}%00`,
      `${p}%20`,
      `${p}.`,
      `${p}.json`,
      encodeFirst(p),
      `/${segments.map(encodeFirst).join('/')}`,
      p.replace(/e/g, '%65'),
      p.replace(/e/g, '%45'),
      `http://127.0.0.1${p}`,
    ];
  };
  return [...new Set(one(path).flatMap((first) => [first, ...one(first).slice(0, 8)]))].filter(
    (spelling) => spelling.length > 0,
  );
}
const TARGETS = ['/admin/reports', '/users/7/profile', '/files/7', '/public'];

/** One request, the target on the request line exactly as given; the status and the body. */
async function raw(port: number, target: string, headers: Record<string, string>) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const lines = [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  const text = Buffer.concat(chunks).toString('latin1');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) };
}

/** A spelling only the option makes reach `/admin/reports`; without it, no route (404). */
const ONLY_WITH = {
  caseSensitive: '/ADMIN/Reports',
  ignoreTrailingSlash: '/admin/reports/',
  ignoreDuplicateSlashes: '//admin//reports',
} as const;

describe.each(Object.entries(OPTIONS))('Fastify router options: %s', (name, routerOptions) => {
  let app: FastifyInstance;
  let port: number;
  const reached: { route: string; caller: string }[] = [];
  beforeAll(async () => {
    app = Fastify({ routerOptions });
    await app.register(authlayer, {
      config: CONFIG,
      env: { ADMIN_KEY: KEYS.admin, PLAIN_KEY: KEYS.plain },
      logger: createCaptureLogger(),
    });
    for (const route of Object.keys(MAY)) {
      app.get(route, async (request) => {
        reached.push({ route, caller: String(request.headers['x-caller']) });
        return `reached ${route}`;
      });
    }
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  it('every request that reached a handler had its route’s rule applied', async () => {
    const spellings = TARGETS.flatMap(spellingsOf);
    expect(spellings.length).toBeGreaterThan(500);
    let leaks = 0;
    for (const spelling of spellings) {
      for (const [caller, headers] of Object.entries(CALLERS)) {
        const before = reached.length;
        const answer = await raw(port, spelling, { ...headers, 'X-Caller': caller });
        const ran = reached.slice(before);
        for (const { route } of ran) {
          const allowed = MAY[route]!(caller as keyof typeof CALLERS);
          if (!allowed) leaks += 1;
          expect({ spelling, caller, route, allowed }).toEqual({ spelling, caller, route, allowed: true });
        }
        // Anything answered 200 came from a handler (nothing else answers 200 here).
        if (answer.status === 200) expect(ran).toHaveLength(1);
      }
    }
    expect(leaks).toBe(0);
    // Controls: the corpus does reach every route, as the admin, and the option under test mattered.
    const routes = new Set(reached.filter((each) => each.caller === 'admin').map((each) => each.route));
    expect([...routes].sort()).toEqual(['/admin/reports', '/public', '/users/:id/profile']);
    expect(reached.filter((each) => each.caller !== 'admin' && each.route !== '/public')).toEqual([]);
  });

  it.each(Object.entries(ONLY_WITH))(
    '%s: its spelling reaches the route only with the option',
    async (option, spelling) => {
      const on = name === option || name === 'all';
      const admin = await raw(port, spelling, CALLERS.admin);
      expect(admin.status).toBe(on ? 200 : 404);
      expect((await raw(port, spelling, CALLERS.plain)).status).toBe(on ? 403 : 404);
    },
  );
});
