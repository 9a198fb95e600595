import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago, for a program that cannot listen on port 0 and say
 * which port it got (redis-server, a README's commands). Prefer port 0 wherever it works.
 *
 * @example
 * const port = await freePort();
 * spawn('redis-server', ['--port', String(port)]);
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
