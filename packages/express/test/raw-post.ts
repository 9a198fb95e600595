import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/**
 * POSTs to `app` on a real keep-alive connection (supertest always asks for `Connection: close`,
 * so it cannot tell whether the server closes): the whole body, or only the first KiB of a
 * declared `Content-Length` of 10 MB (`partial`).
 * Resolves with the status and the answer's `Connection` header.
 */
export async function rawPost(
  app: Express,
  path: string,
  headers: Record<string, string>,
  partial: boolean,
): Promise<{ status: number; connection: string | undefined }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const agent = new Agent({ keepAlive: true });
  try {
    return await new Promise((resolve, reject) => {
      const body = '{"query":"q"}';
      const length = partial ? 10_000_000 : body.length;
      const req = request(
        {
          host: '127.0.0.1',
          port: (server.address() as AddressInfo).port,
          method: 'POST',
          path,
          agent,
          headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': length },
        },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          req.destroy();
        },
      );
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      if (partial) req.write('x'.repeat(1024));
      else req.end(body);
    });
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
