import type { Express } from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An app on a real listener on 127.0.0.1 (port 0), so the URL a client addresses is known. */
export async function listen(app: Express): Promise<{ readonly origin: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const made = app.listen(0, '127.0.0.1', () => resolve(made));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
