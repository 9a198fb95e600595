import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Logger } from '@authlayer/core';

/** How long requests in flight may take to finish after SIGTERM/SIGINT (contract: at most 10 s). */
export const SHUTDOWN_GRACE_MS = 10_000;
/** How long an idle keep-alive connection may still bring a request after SIGTERM/SIGINT. */
export const IDLE_GRACE_MS = 1_000;

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
 * connections are refused), requests in flight finish and their connections close after the
 * answer; an idle keep-alive connection still gets a request sent within `IDLE_GRACE_MS` answered
 * (then closed), and is closed after that; after `graceMs` whatever is left is cut. Then
 * `release` (the Redis connection) and `exit(0)`.
 */
export function stopOnSignals(
  server: Server,
  logger: Logger,
  release: () => Promise<void>,
  exit: (code: number) => void,
) {
  const inFlight = new Set<ServerResponse>();
  let stopping = false;
  const track = (_req: unknown, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    // After the signal, a request on a kept-alive connection is answered, then the connection ends.
    if (stopping) res.setHeader('Connection', 'close');
  };
  server.on('request', track);
  // A request with `Expect: 100-continue` comes as checkContinue instead (continueAfterAuthentication).
  server.on('checkContinue', track);
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    // net's close, not http's: it stops accepting but leaves idle keep-alive connections open
    // (http's would destroy them, and a client's next request may already be on the wire). Each
    // ends after its next answer (Connection: close), or is closed after IDLE_GRACE_MS: long
    // enough for a request already on the wire to arrive, short enough not to hold the stop.
    const idle = setTimeout(() => server.closeIdleConnections(), IDLE_GRACE_MS);
    NetServer.prototype.close.call(server, () => {
      clearTimeout(timer);
      clearTimeout(idle);
      const done = () => {
        logger.info('stopped');
        exit(0);
      };
      // A Redis that fails to close must not turn a clean stop into an unhandled rejection.
      release().then(done, done);
    });
    // Said once the listening socket is closed, so a client that reads it finds new connections refused.
    logger.info(`${signal}: shutting down; no new connections, ${inFlight.size} request(s) in flight`);
    for (const res of inFlight) {
      // No keep-alive after the answer, so the connection ends with the request.
      if (!res.headersSent) res.setHeader('Connection', 'close');
    }
  };
  // `on`, not `once`: a second signal during the grace period must not kill the process mid-request.
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
