import type { IncomingMessage } from 'node:http';

/**
 * The client address a failed-auth limit counts: the socket's peer, or with `trustProxy` the first
 * (client-most) entry of `X-Forwarded-For`, as Express's `trust proxy: true` reads it. Only turn
 * `trustProxy` on behind a proxy that sets that header, or clients choose their own address.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first;
  }
  const peer = req.socket.remoteAddress ?? 'unknown';
  // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d; count it as a.b.c.d.
  return peer.startsWith('::ffff:') ? peer.slice('::ffff:'.length) : peer;
}
