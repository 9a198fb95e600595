import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A `node:http` server on 127.0.0.1 at a free port. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /**
   * Stops listening and destroys every open socket, including those of requests that were
   * never answered, so a test that made the server hang still ends cleanly.
   */
  close(): Promise<void>;
  /** Listens again on the same port after `close()` (an outage that ends). */
  reopen(): Promise<void>;
}

/** Starts `listener` on 127.0.0.1, port 0 (the system picks a free one). */
export async function startLoopbackServer(
  listener: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  const server = createServer(listener);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    reopen: () => listen(port),
  };
}
