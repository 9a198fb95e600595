import type { AuthRequest } from './handler.js';

/** What the `Authorization` header holds, as far as Bearer authentication cares. */
export type BearerToken =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string };

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const ABSENT: BearerToken = Object.freeze({ kind: 'absent' });
const MALFORMED: BearerToken = Object.freeze({ kind: 'malformed' });

/**
 * Reads `Authorization: Bearer <token>`. The scheme name is case-insensitive (RFC 7235 §2.1).
 * No header, or another scheme (`Basic ...`), is `absent`; a Bearer header without exactly one
 * well-formed token, or several `Authorization` headers, is `malformed`.
 */
export function readBearerToken(request: AuthRequest): BearerToken {
  const value = request.headers.authorization;
  if (value === undefined || value === '') return ABSENT;
  if (typeof value !== 'string') return MALFORMED;
  const space = value.indexOf(' ');
  const scheme = space === -1 ? value : value.slice(0, space);
  if (scheme.toLowerCase() !== 'bearer') return ABSENT;
  const token = space === -1 ? '' : value.slice(space + 1).trim();
  return B64TOKEN.test(token) ? { kind: 'token', token } : MALFORMED;
}
