import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '@authlayer/core';

/** How long requests in flight may take to finish after SIGTERM/SIGINT (contract: at most 10 s). */
export const SHUTDOWN_GRACE_MS = 10_000;

/** Answers what Node's HTTP parser refuses (a header over 16 KiB, a broken request line) with JSON. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, code] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
        : [400, 'Bad Request', 'the request is not valid HTTP'];
    const body = JSON.stringify({ error: 'invalid_request', message: code });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/**
 * Graceful stop, wired to SIGTERM and SIGINT: the server stops accepting at once (new
 * connections are refused), idle keep-alive connections are closed, requests in flight finish
 * and their connections close after the answer; after `graceMs` whatever is left is cut. Then
 * `release` (the Redis connection) and `exit(0)`.
 */
export function stopOnSignals(
  server: Server,
  logger: Logger,
  release: () => Promise<void>,
  exit: (code: number) => void,
) {
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    server.close(() => {
      clearTimeout(timer);
      const done = () => {
        logger.info('stopped');
        exit(0);
      };
      // A Redis that fails to close must not turn a clean stop into an unhandled rejection.
      release().then(done, done);
    });
    server.closeIdleConnections();
    // Said once the listening socket is closed, so a client that reads it finds new connections refused.
    logger.info(`${signal}: shutting down; no new connections, ${inFlight.size} request(s) in flight`);
    for (const res of inFlight) {
      // No keep-alive after the answer, so the connection ends with the request.
      if (!res.headersSent) res.setHeader('Connection', 'close');
      res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
    }
  };
  // `on`, not `once`: a second signal during the grace period must not kill the process mid-request.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
