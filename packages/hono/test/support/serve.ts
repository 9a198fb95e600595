import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import authlayer, { type AuthlayerMiddleware, type AuthlayerOptions } from '../../src/index.js';

/** A Hono app served by `@hono/node-server` on a loopback port (port 0). */
export interface ServedHono {
  readonly url: string;
  readonly app: Hono;
  readonly auth: AuthlayerMiddleware;
  close(): Promise<void>;
}

/**
 * `app.use(await authlayer(options))`, then the routes `routes` adds, then listening on port 0
 * (`onServer` is handed the server first: `injectWebSocket`).
 * Closing ends the server's connections and the middleware's engine.
 */
export async function serveHono(
  options: AuthlayerOptions,
  routes: (app: Hono, auth: AuthlayerMiddleware) => void,
  onServer?: (server: ServerType) => void,
) {
  const app = new Hono();
  const auth = await authlayer(options);
  app.use(auth);
  routes(app, auth);
  const server: ServerType = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  onServer?.(server);
  if (!server.listening) await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    auth,
    close: async () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auth.close();
    },
  } satisfies ServedHono;
}
