import type { AuthRequest } from './handler.js';
import { soleHeaderValue } from './header-values.js';

/** What the `Authorization` header holds, as far as Bearer authentication cares. */
export type BearerToken =
  { readonly kind: 'absent' } | { readonly kind: 'malformed' } | { readonly kind: 'token'; readonly token: string };

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const ABSENT: BearerToken = Object.freeze({ kind: 'absent' });
const MALFORMED: BearerToken = Object.freeze({ kind: 'malformed' });

/**
 * Reads `Authorization: Bearer <token>`. The scheme name is case-insensitive (RFC 7235 §2.1).
 * No header (or an empty one), or another scheme (`Basic ...`), is `absent`; a Bearer header
 * without exactly one well-formed token after a space (`Bearer<TAB>abc` too), or several
 * non-empty `Authorization` headers (whatever their schemes), is `malformed`: none is guessed.
 */
export function readBearerToken(request: AuthRequest): BearerToken {
  return readSchemeToken(request, 'bearer');
}

/**
 * {@link readBearerToken} for another scheme whose credentials are a token68 (RFC 9449 §7.1:
 * `Authorization: DPoP <token>`); `scheme` in lower case.
 */
export function readSchemeToken(request: AuthRequest, scheme: string): BearerToken {
  const value = soleHeaderValue(request, 'authorization');
  if (value === '') return ABSENT;
  if (value === null) return MALFORMED;
  const sent = value.split(/[ \t]/, 1)[0] as string;
  if (sent.toLowerCase() !== scheme) return ABSENT;
  // RFC 7235 §2.1: `credentials = auth-scheme [ 1*SP token68 ]`; a tab is no separator.
  const rest = value.slice(sent.length);
  const token = rest.startsWith(' ') ? rest.trim() : '';
  return B64TOKEN.test(token) ? { kind: 'token', token } : MALFORMED;
}
