import { headerValues, readBearerToken, type AuthRequest } from '@authlayer/core';

/** What the request carries: no key, a key, or a Bearer header too broken to hold one. */
export type PresentedKey =
  { readonly kind: 'absent' } | { readonly kind: 'malformed' } | { readonly kind: 'key'; readonly key: string };

const ABSENT: PresentedKey = Object.freeze({ kind: 'absent' });
const MALFORMED: PresentedKey = Object.freeze({ kind: 'malformed' });

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
  const values = headerValues(request, headerName);
  if (values.length > 1) return MALFORMED;
  if (values.length === 1) return { kind: 'key', key: values[0] as string };
  if (!allowBearer) return ABSENT;
  const bearer = readBearerToken(request);
  return bearer.kind === 'token' ? { kind: 'key', key: bearer.token } : bearer;
}
