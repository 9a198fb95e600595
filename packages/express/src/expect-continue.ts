import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

// Requests that asked `Expect: 100-continue` and have not been told to go on yet.
const awaitingContinue = new WeakSet<IncomingMessage>();

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
    awaitingContinue.add(req);
    listener(req, res);
  });
}

/** Sends `100 Continue` to a request that asked for it and is now authenticated; else nothing. */
export function sendContinueIfAwaited(req: IncomingMessage, res: ServerResponse): void {
  if (awaitingContinue.delete(req) && !res.headersSent) res.writeContinue();
}
