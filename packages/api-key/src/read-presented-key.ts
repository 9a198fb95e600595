import { readBearerToken, soleHeaderValue, type AuthRequest } from '@authlayer/core';

/** What the request carries: no key, a key, or a Bearer header too broken to hold one. */
export type PresentedKey =
  { readonly kind: 'absent' } | { readonly kind: 'malformed' } | { readonly kind: 'key'; readonly key: string };

/** A {@link PresentedKey} that holds no key. */
export type NoKey = Exclude<PresentedKey, { readonly kind: 'key' }>;

const ABSENT: NoKey = Object.freeze({ kind: 'absent' });
const MALFORMED: NoKey = Object.freeze({ kind: 'malformed' });

/**
 * Reads the key in the spec's order: the configured header first; only when no key was found
 * there and `allowBearer` is on, `Authorization: Bearer <key>`.
 *
 * One rule for empty and repeated headers (see `headerValues`): an empty header counts as not
 * sent, whether there is one or several; several non-empty headers of the configured name are
 * `malformed` (a 401 `credentials_invalid`), never one of them guessed.
 *
 * @param headerName - the configured header, any case
 */
export function readPresentedKey(request: AuthRequest, headerName: string, allowBearer: boolean): PresentedKey {
  const key = presentedKeyOf(request, headerName, allowBearer);
  return typeof key === 'string' ? { kind: 'key', key } : key;
}

/**
 * {@link readPresentedKey} without an object per request: the key itself, or what holds none.
 * The handler's per-request path; pass the header name in lower case (nothing to lower-case then).
 */
export function presentedKeyOf(request: AuthRequest, headerName: string, allowBearer: boolean): string | NoKey {
  const value = soleHeaderValue(request, headerName);
  if (value === null) return MALFORMED;
  if (value !== '') return value;
  if (!allowBearer) return ABSENT;
  const bearer = readBearerToken(request);
  return bearer.kind === 'token' ? bearer.token : bearer;
}
