import type { AuthError, AuthMethod } from '@authlayer/core';

// Which mode refused a request, carried by the refusal itself (not kept beside the request): the
// decision of a refusal names the mode the credential went to.
const TRIED = Symbol('authlayer.modeTried');

/** `error`, marked as the refusal of `method`'s handler; returned for a `throw`. */
export function refusedBy<E extends AuthError>(error: E, method: AuthMethod): E {
  Object.defineProperty(error, TRIED, { value: method });
  return error;
}

/** The mode whose handler refused, when a combined handler or the revocation list said so. */
export function modeThatRefused(error: AuthError): AuthMethod | undefined {
  return (error as { [TRIED]?: AuthMethod })[TRIED];
}
