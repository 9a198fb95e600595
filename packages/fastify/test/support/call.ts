import type { FastifyInstance } from 'fastify';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer as a client read it off the wire. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  json(): unknown;
}

const listening = new WeakMap<FastifyInstance, Promise<number>>();

/**
 * One real HTTP request to the app (listening on a loopback port on first use), the path sent as
 * written (`//a/b` stays). Fastify's `inject` needs an ESM-only `cookie` that jest's VM modules
 * cannot load; real HTTP is what the adapters serve anyway.
 */
export async function call(
  app: FastifyInstance,
  options: { method: string; url: string; headers?: Record<string, string>; body?: string },
): Promise<Answer> {
  let port = listening.get(app);
  if (port === undefined) {
    port = app.listen({ port: 0, host: '127.0.0.1' }).then(() => (app.server.address() as AddressInfo).port);
    listening.set(app, port);
  }
  const req = httpRequest({
    host: '127.0.0.1',
    port: await port,
    method: options.method,
    path: options.url,
    headers: { connection: 'close', ...options.headers },
  });
  req.end(options.body);
  const res = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk as string;
  return { statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) as unknown };
}
