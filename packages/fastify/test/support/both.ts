// Express and Fastify serving the same config, for this package's tests that compare the two (the
// adapters' corpus, with Hono, is tests/adapter-conformance: a package that depends on this one).
import { createAuthMiddleware, type AuthDecision } from '@authlayer/express';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import authlayer from '../../src/index.js';

/** A route of the app under test: its method and path (the same syntax in both frameworks here). */
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

/** Every route answers the caller's identity as JSON. */
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
  const { requireAccess } = await import('@authlayer/express');
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
