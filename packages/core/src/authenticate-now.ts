import type { AuthContext } from './auth-context.js';
import type { AuthHandler, AuthRequest } from './handler.js';

/** What `AuthHandler.authenticateNow` answers: the identity now, or a Promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** True for a Promise (or any thenable), so a synchronous answer is never mistaken for one. */
export function isPromiseLike<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * The `authenticate` and `authenticateNow` of a handler, from one function that answers
 * synchronously when it can (see `AuthHandler.authenticateNow`): `authenticate` turns a
 * synchronous answer or throw into a resolved or rejected Promise, so the two never disagree.
 *
 * @example
 * const handler: AuthHandler = { method: 'api_key', ...fromAuthenticateNow((request) => check(request)) };
 */
export function fromAuthenticateNow(
  now: (request: AuthRequest) => MaybePromise<AuthContext>,
): Pick<Required<AuthHandler>, 'authenticate' | 'authenticateNow'> {
  return {
    authenticateNow: now,
    authenticate(request) {
      try {
        return Promise.resolve(now(request));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

/** A handler's synchronous-when-possible form: `authenticateNow`, else `authenticate`. */
export function authenticateNowOf(handler: AuthHandler): (request: AuthRequest) => MaybePromise<AuthContext> {
  const now = handler.authenticateNow;
  return now === undefined ? (request) => handler.authenticate(request) : (request) => now.call(handler, request);
}
