import Fastify from 'fastify';
import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import authlayer from '../../src/index.js';

// The app shapes of test/added-routes.http.test.ts: a plugin with a prefix, one route per method
// Fastify routes at the prefix root, under each `prefixTrailingSlash` and `exposeHeadRoutes`. A
// shape is plain data (a Spec), so that fixtures/added-routes-inject.mjs builds the same app in a
// child process for `inject` (jest's VM modules cannot load light-my-request's ESM-only `cookie`).

export const KEYS = { admin: 'admin-key-0123456789abcdef', plain: 'plain-key-0123456789abcdef' };
export const CALLERS = {
  anonymous: {},
  plain: { 'x-api-key': KEYS.plain },
  admin: { 'x-api-key': KEYS.admin },
} as const;
export type Caller = keyof typeof CALLERS;

/** Every method a Fastify app routes by default, and one it routes once told (`addHttpMethod`). */
export const ADDED_METHODS = ['PROPFIND'];
export const METHODS = [...Fastify().supportedMethods, ...ADDED_METHODS];
/** The spellings of the prefix root a client can send. */
export const TARGETS = ['/api', '/api/', '/api//'];

export type TrailingSlash = 'both' | 'slash' | 'no-slash';
export interface Shape {
  readonly prefix: '/api' | '/api/';
  readonly prefixTrailingSlash: TrailingSlash;
  readonly exposeHeadRoutes: boolean;
  /** `methods`: one key per registered method (`GET <url>` also names its HEAD route); `star`: `* <url>`. */
  readonly keys: 'methods' | 'star';
}

/** What an app is built from: the shape, its routes' methods, and the plugin's config (none: no plugin). */
export interface Spec extends Shape {
  readonly methods: readonly string[];
  readonly added: readonly string[];
  readonly config: object | null;
  readonly env: Record<string, string>;
}

/** The URL Fastify registers (and `onRoute` reports) `child.get('/')` at, under the shape. */
export function registeredUrl({ prefix, prefixTrailingSlash }: Shape): string {
  if (prefixTrailingSlash === 'slash') return `${prefix}/`;
  return prefix;
}

/** The methods a key can name (`TRACE /x` is refused at start-up: only `* /x` names such a route). */
const NAMEABLE = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The spec of a shape: a route of each method but HEAD (Fastify adds HEAD), each key admin-only;
 * with `keys: 'methods'`, only the methods a key can name.
 */
export function specOf(shape: Shape, plugin = true): Spec {
  const url = registeredUrl(shape);
  const methods = METHODS.filter((method) => method !== 'HEAD' && (shape.keys === 'star' || NAMEABLE.includes(method)));
  const rule = { roles: ['admin'] };
  const access = Object.fromEntries(
    shape.keys === 'star' ? [[`* ${url}`, rule]] : methods.map((method) => [`${method} ${url}`, rule]),
  );
  const config = {
    auth: {
      mode: 'api_key',
      api_keys: {
        keys: [
          { name: 'admin', env_var: 'ADMIN_KEY', roles: ['admin'] },
          { name: 'plain', env_var: 'PLAIN_KEY' },
        ],
      },
    },
    // Not deny: a route judged by no key (the default) shows as a handler run for `plain`.
    access: { default: 'authenticated', ...access },
  };
  return {
    ...shape,
    methods,
    added: ADDED_METHODS,
    config: plugin ? config : null,
    env: { ADMIN_KEY: KEYS.admin, PLAIN_KEY: KEYS.plain },
  };
}

/** One request and what came of it: the status, and the callers whose requests ran the handler. */
export interface Outcome {
  readonly method: string;
  readonly target: string;
  readonly caller: Caller;
  readonly status: number;
  readonly ran: readonly string[];
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** The app of a spec (the plugin from src); `ran` lists the `x-caller` of each handler run. */
export async function appOf(spec: Spec) {
  const ran: string[] = [];
  const app = Fastify({ exposeHeadRoutes: spec.exposeHeadRoutes });
  for (const method of spec.added) app.addHttpMethod(method, { hasBody: true });
  if (spec.config !== null) await app.register(authlayer, { config: spec.config, env: spec.env, logger: quiet });
  await app.register(
    async (child) => {
      for (const method of spec.methods) {
        child.route({
          method,
          url: '/',
          prefixTrailingSlash: spec.prefixTrailingSlash,
          handler: async (request) => {
            ran.push(String(request.headers['x-caller']));
            return 'reached';
          },
        });
      }
    },
    { prefix: spec.prefix },
  );
  try {
    await app.ready();
  } catch (error) {
    await app.close();
    throw error;
  }
  return { app, ran };
}

/** One request on a socket, the request line exactly as given; the status. */
export async function raw(port: number, method: string, target: string, headers: Record<string, string>) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', 'Content-Length: 0'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.end(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  await once(socket, 'close');
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'))?.[1] ?? 0);
}

/** Every method × target × caller on a real socket, one at a time. */
export async function sendAll(spec: Spec): Promise<Outcome[]> {
  const { app, ran } = await appOf(spec);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const outcomes: Outcome[] = [];
    for (const method of METHODS) {
      for (const target of TARGETS) {
        for (const [caller, headers] of Object.entries(CALLERS) as [Caller, Record<string, string>][]) {
          const before = ran.length;
          const status = await raw(port, method, target, { ...headers, 'x-caller': caller });
          outcomes.push({ method, target, caller, status, ran: ran.slice(before) });
        }
      }
    }
    return outcomes;
  } finally {
    await app.close();
  }
}
