import type { AuthContext, Logger } from '@authlayer/core';
import {
  decide,
  nonCanonicalTargetAnswer,
  RequestScope,
  type Answer,
  type EngineRequest,
  type Generation,
  type Outcome,
} from '@authlayer/engine/internal';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { kindOf } from './error-handler.js';
import { holdScope } from './request.js';

/** An upgrade request as `auth.upgrade` hands it on: `auth` is set when a caller authenticated. */
export type UpgradeRequest = IncomingMessage & { auth?: AuthContext };

/** What `server.on('upgrade')` calls, and what `auth.upgrade` calls once an upgrade is allowed. */
export type UpgradeListener = (req: UpgradeRequest, socket: Duplex, head: Buffer) => void;

type Headers = readonly (readonly [string, string])[];

const INTERNAL: Answer = { status: 500, headers: [], code: 'internal', message: 'internal error' };

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
  return (req, socket, head) => {
    // The socket is ours until the handler has it: a client that goes away while it is judged
    // must not become an unhandled 'error'.
    const onError = (): void => void socket.destroy();
    socket.on('error', onError);
    // The handler routes on this target itself, often through WHATWG URL parsing, which resolves
    // `..`, `\` and absolute-form: only a target it leaves as it is can be judged.
    const invalid = nonCanonicalTargetAnswer(req.url ?? '');
    if (invalid !== null) return writeAnswer(socket, invalid, []);
    const scope = new RequestScope(() => null);
    // Kept with the request, so `auth.hold(req, end)` re-judges the upgrade as the GET it was.
    holdScope(req, scope);
    const path = pathOf(req.url);
    scope.judged = { method: 'GET', path };
    // A server's request always has its method (the type allows none for a client's response).
    const request = req as EngineRequest;
    const settle = (outcome: Outcome): void => {
      if (!outcome.pass) return writeAnswer(socket, outcome.answer, outcome.headers);
      if (outcome.context !== undefined) (req as UpgradeRequest).auth = outcome.context;
      // The upgrade's answer starts in the handler: the held decision is reported now.
      scope.answered();
      if (socket.destroyed) return;
      socket.removeListener('error', onError);
      try {
        handler(req, socket, head);
      } catch (error) {
        logger.error(`the upgrade handler failed (${kindOf(error)}) on ${pathOf(req.url)}`);
        socket.destroy();
      }
    };
    const fail = (error: unknown): void => {
      logger.error(`internal error (${kindOf(error)}) on upgrade ${pathOf(req.url)}`);
      writeAnswer(socket, INTERNAL, []);
    };
    let outcome: Outcome | Promise<Outcome>;
    try {
      const step = current().access('GET', path, request, scope);
      if (step.kind === 'public') return settle({ pass: true, context: undefined, headers: [] });
      outcome = step.kind === 'denied' ? step.outcome : decide(step.flow, request, scope);
    } catch (error) {
      return fail(error);
    }
    if (outcome instanceof Promise) {
      outcome.then(settle, fail);
      return;
    }
    settle(outcome);
  };
}

/** The path of a request target, as Express's `req.path` gives it (no query). */
export function pathOf(url: string | undefined): string {
  const target = url ?? '/';
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  return path === '' ? '/' : path;
}

/**
 * Writes a refusal as the HTTP answer Express sends for it (status line, the outcome's headers,
 * the answer's `WWW-Authenticate` / `Retry-After`, the contract's JSON body) and ends the socket.
 */
function writeAnswer(socket: Duplex, answer: Answer, headers: Headers): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = JSON.stringify({ error: answer.code, message: answer.message });
  const lines = [`HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}`];
  for (const [name, value] of [...headers, ...answer.headers]) lines.push(`${name}: ${value}`);
  lines.push(
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  );
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
