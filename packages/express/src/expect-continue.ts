import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

// Marks a request that asked `Expect: 100-continue` and has not been told to go on yet: a
// property of the request itself, as the engine's scope is, not a table keyed by requests.
const AWAITING = Symbol('authlayer.awaitingContinue');

type Marked = IncomingMessage & { [AWAITING]?: boolean };

/**
 * Makes `server` answer `Expect: 100-continue` only after authentication: instead of Node's
 * default (`100 Continue` at once, so the client uploads before anyone looked at its
 * credentials), the request goes to `listener` as it is, the authlayer middleware sends
 * `100 Continue` once the request is authenticated, and a refused request gets its 401 (and a
 * closed connection) without the client ever being invited to upload.
 *
 * A route without the middleware that reads a body should call `res.writeContinue()` itself;
 * otherwise clients send the body after their own wait (curl: 1 s), as RFC 9110 §10.1.1 allows.
 *
 * @param server - the server that `app.listen(...)` returned, or `http.createServer(...)`
 * @param listener - the Express app (any request listener)
 * @example
 * const server = app.listen(8080);
 * continueAfterAuthentication(server, app);
 */
export function continueAfterAuthentication(server: Server, listener: RequestListener): void {
  // With a checkContinue listener, Node no longer sends 100 by itself (node:http docs).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    (req as Marked)[AWAITING] = true;
    listener(req, res);
  });
}

/** Sends `100 Continue` to a request that asked for it and is now authenticated; else nothing. */
export function sendContinueIfAwaited(req: IncomingMessage, res: ServerResponse): void {
  const marked = req as Marked;
  if (marked[AWAITING] !== true) return;
  marked[AWAITING] = false;
  if (!res.headersSent) res.writeContinue();
}
