import type { AuthContext, Logger } from '@authlayer/core';
import {
  INTERNAL_ANSWER,
  kindOf,
  nonCanonicalTargetAnswer,
  pathOf,
  runAccess,
  RequestScope,
  type EngineRequest,
  type Generation,
  type Port,
} from '@authlayer/engine/internal';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { writeSocketAnswer } from './answer.js';
import { holdScope } from './scope.js';

/** An upgrade request as `auth.upgrade` hands it on: `auth` is set when a caller authenticated. */
export type UpgradeRequest = IncomingMessage & { auth?: AuthContext };

/** What `server.on('upgrade')` calls, and what `auth.upgrade` calls once an upgrade is allowed. */
export type UpgradeListener = (req: UpgradeRequest, socket: Duplex, head: Buffer) => void;

/**
 * `auth.upgrade(handler)`: a listener for `server.on('upgrade')` that judges the upgrade as
 * `auth.access` judges a `GET` of its URL (the same table, modes and headers). A target that is not
 * canonical (absolute-form, `.`/`..` segments, `//`, `\`, `;`, `#`, an encoded `/`, `\`, `.` or
 * unreserved character, invalid percent-encoding, `%00`) is answered `400` `invalid_request` before
 * authentication, so the path the handler routes on is the path judged. A refusal is written
 * on the socket as the same HTTP answer, and the socket is ended: `handler` never runs. Allowed:
 * `req.auth` is set (unset on a `public` route) and `handler(req, socket, head)` is called. An
 * `onDecision` listener that throws becomes a 500 on the socket, never a crash.
 */
export function createUpgrade(
  current: () => Generation,
  logger: Logger,
  handler: UpgradeListener,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  if (typeof handler !== 'function') throw new TypeError('auth.upgrade(handler): handler must be a function');
  const port = upgradePort(logger, handler);
  return function authlayerUpgrade(req, socket, head) {
    // The socket is ours until the handler has it: a client that goes away while it is judged
    // must not become an unhandled 'error'.
    socket.on('error', destroySocket);
    // The handler routes on this target itself, often through WHATWG URL parsing, which resolves
    // `..`, `\` and absolute-form: only a target it leaves as it is can be judged.
    const invalid = nonCanonicalTargetAnswer(req.url ?? '');
    if (invalid !== null) return writeSocketAnswer(socket, invalid, []);
    const scope = new RequestScope(() => null);
    // Kept with the request, so `auth.hold(req, end)` re-judges the upgrade as the GET it was.
    holdScope(req, scope);
    const path = pathOf(req.url);
    scope.judged = { method: 'GET', path };
    // A server's request always has its method (the type allows none for a client's response).
    runAccess(current(), 'GET', path, req as EngineRequest, scope, req, socket, head, port);
  };
}

/** The upgrade's port to the engine: made once per `auth.upgrade(handler)`. */
function upgradePort(logger: Logger, handler: UpgradeListener): Port<IncomingMessage, Duplex, Buffer> {
  return {
    pass(req, socket, head, context, _headers, scope) {
      if (context !== undefined) (req as UpgradeRequest).auth = context;
      // The upgrade's answer starts in the handler: the held decision is reported now.
      scope.answered();
      if (socket.destroyed) return;
      socket.removeListener('error', destroySocket);
      try {
        handler(req, socket, head);
      } catch (error) {
        logger.error(`the upgrade handler failed (${kindOf(error)}) on ${pathOf(req.url)}`);
        socket.destroy();
      }
    },
    refuse: (_req, socket, _head, answer, headers) => writeSocketAnswer(socket, answer, headers),
    fail(req, socket, _head, error) {
      logger.error(`internal error (${kindOf(error)}) on upgrade ${pathOf(req.url)}`);
      writeSocketAnswer(socket, INTERNAL_ANSWER, []);
    },
    // Nothing of an upgrade is read before it is answered.
    refuseLater: false,
  };
}

/** The socket's `error` listener while it is judged (the socket is `this`): one for every upgrade. */
function destroySocket(this: Duplex): void {
  this.destroy();
}
