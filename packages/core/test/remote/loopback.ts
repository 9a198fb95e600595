import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on 127.0.0.1, port 0, answering with `listener`; counts its requests. */
export async function serve(
  listener: RequestListener,
): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits += 1;
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
