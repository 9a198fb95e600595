import { readBearerToken, type AuthRequest } from '@authlayer/core';

/** What the request carries: no key, a key, or a Bearer header too broken to hold one. */
export type PresentedKey =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'key'; readonly key: string };

const ABSENT: PresentedKey = Object.freeze({ kind: 'absent' });

/**
 * Reads the key in the spec's order: the configured header first; only when no key was found
 * there and `allowBearer` is on, `Authorization: Bearer <key>`. An empty header counts as no key.
 *
 * @param headerName - the configured header, any case (Node gives header names in lower case)
 */
export function readPresentedKey(request: AuthRequest, headerName: string, allowBearer: boolean): PresentedKey {
  const name = headerName.toLowerCase();
  // Own properties only: Node's headers object inherits from Object.prototype, and names such as
  // `constructor` are valid header names, so a plain lookup would return a function.
  const value = Object.hasOwn(request.headers, name) ? request.headers[name] : undefined;
  // Node joins repeated custom headers with ", ", so an array only comes from a hand-made request.
  if (Array.isArray(value)) return { kind: 'malformed' };
  if (value !== undefined && value !== '') return { kind: 'key', key: value };
  if (!allowBearer) return ABSENT;
  const bearer = readBearerToken(request);
  return bearer.kind === 'token' ? { kind: 'key', key: bearer.token } : bearer;
}
