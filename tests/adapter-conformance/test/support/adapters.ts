import { createAuthMiddleware, requireAccess, type AuthDecision } from '@authlayer/express';
import authlayer from '@authlayer/fastify';
import honoAuthlayer from '@authlayer/hono';
import { createCaptureLogger } from '@authlayer/testkit';
import { serve, type ServerType } from '@hono/node-server';
import express from 'express';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Hono, type Context } from 'hono';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// Each adapter serving the same routes on a loopback port (port 0), every route answering the
// caller's identity as JSON, every decision recorded: what the conformance suites compare.

/** A route of the app under test: its method and path (the same syntax in every framework here). */
export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'DELETE' | 'PUT';
  readonly path: string;
  /** The path as Fastify spells it, when it differs (`/files/*` for Express's `/files/*rest`). */
  readonly fastifyPath?: string;
}

/** One adapter serving an app on a loopback port. */
export interface Served {
  readonly url: string;
  readonly decisions: AuthDecision[];
  /** The adapter's `revoke` and `reload` (Express: `auth.*`; Fastify: `app.authlayer.*`). */
  revoke(entry: string): Promise<unknown>;
  reload(config: object): Promise<unknown>;
  close(): Promise<void>;
}

export interface ServeOptions {
  readonly env?: Record<string, string>;
  /** A rule object for `requireAccess` on every route. */
  readonly guard?: object;
  /** The middleware's clock (`max_age`, token times), pinned by the test. Default `Date.now`. */
  readonly now?: () => number;
}

/** Express: `auth.access` before the routes, `requireAccess(guard)` on each when given. */
export async function serveExpress(config: object, routes: readonly RouteSpec[], options: ServeOptions = {}) {
  const decisions: AuthDecision[] = [];
  const auth = await createAuthMiddleware(config, {
    env: options.env ?? {},
    ...(options.now === undefined ? {} : { now: options.now }),
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  const app = express();
  app.use(auth.access);
  for (const route of routes) {
    const handlers: express.RequestHandler[] = [];
    if (options.guard !== undefined) handlers.push(requireAccess(options.guard));
    app[route.method.toLowerCase() as 'get'](route.path, ...handlers, (req, res) => {
      res.json({ auth: req.auth ?? null });
    });
  }
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    decisions,
    revoke: (entry) => auth.revoke(entry),
    reload: (next) => auth.reload(next),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await auth.close();
    },
  } satisfies Served;
}

/** Fastify: the plugin, `app.authlayer.requireAccess(guard)` as each route's `preHandler` when given. */
export async function serveFastify(
  config: object,
  routes: readonly RouteSpec[],
  options: ServeOptions & { readonly fastify?: FastifyServerOptions } = {},
) {
  const decisions: AuthDecision[] = [];
  const app: FastifyInstance = Fastify(options.fastify ?? {});
  await app.register(authlayer, {
    config,
    env: options.env ?? {},
    ...(options.now === undefined ? {} : { now: options.now }),
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  for (const route of routes) {
    app.route({
      method: route.method,
      url: route.fastifyPath ?? route.path,
      ...(options.guard === undefined ? {} : { preHandler: app.authlayer.requireAccess(options.guard) }),
      handler: async (request) => ({ auth: request.auth ?? null }),
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    decisions,
    app,
    revoke: (entry) => app.authlayer.revoke(entry),
    reload: (next) => app.authlayer.reload(next),
    close: async () => {
      await app.close();
    },
  } satisfies Served & { app: FastifyInstance };
}

/** Hono: `app.use(auth)` before the routes, `auth.requireAccess(guard)` on each when given. */
export async function serveHono(config: object, routes: readonly RouteSpec[], options: ServeOptions = {}) {
  const decisions: AuthDecision[] = [];
  const auth = await honoAuthlayer({
    config,
    env: options.env ?? {},
    ...(options.now === undefined ? {} : { now: options.now }),
    logger: createCaptureLogger(),
    onDecision: (decision) => decisions.push(decision),
  });
  const app = new Hono();
  app.use(auth);
  // The app's own 200 as Express's `res.json` writes it (Hono's `c.json` says no charset): the
  // corpus compares the whole answer, and this one is the app's, not the adapter's.
  const answer = (c: Context) =>
    c.body(JSON.stringify({ auth: c.get('auth') ?? null }), 200, { 'Content-Type': 'application/json; charset=utf-8' });
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get';
    if (options.guard === undefined) app[method](route.path, answer);
    else app[method](route.path, auth.requireAccess(options.guard), answer);
  }
  if (auth.unmatchedRules(app).length > 0) throw new Error(`keys that name no route: ${auth.unmatchedRules(app)}`);
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    decisions,
    revoke: (entry) => auth.revoke(entry),
    reload: (next) => auth.reload(next),
    close: async () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
    },
  } satisfies Served;
}

/** The adapters, Express first: every other adapter's answers are compared with Express's. */
export const ADAPTERS = [
  ['express', serveExpress],
  ['fastify', serveFastify],
  ['hono', serveHono],
] as const;
