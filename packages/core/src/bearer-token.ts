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
  const read = readSchemeCandidate(request, scheme);
  return read.kind === 'token' && !isToken68(read.token) ? MALFORMED : read;
}

/**
 * {@link readSchemeToken} without the token68 check of the token: for a caller that looks the
 * token up among tokens it verified before (each of which passed the check) and checks one it
 * does not find with {@link isToken68}, so a token reused on every request is not scanned again.
 */
export function readSchemeCandidate(request: AuthRequest, scheme: string): BearerToken {
  const value = soleHeaderValue(request, 'authorization');
  if (value === '') return ABSENT;
  if (value === null) return MALFORMED;
  // The scheme is what comes before the first space or tab: found without a regular expression
  // and without scanning a long token for a tab.
  const space = value.indexOf(' ');
  const head = space === -1 ? value : value.slice(0, space);
  const tab = head.indexOf('\t');
  const sent = tab === -1 ? head : head.slice(0, tab);
  if (sent.toLowerCase() !== scheme) return ABSENT;
  // RFC 7235 §2.1: `credentials = auth-scheme [ 1*SP token68 ]`; a tab is no separator.
  if (tab !== -1 || space === -1) return MALFORMED;
  return { kind: 'token', token: value.slice(space + 1).trim() };
}

/** RFC 6750 §2.1's `b64token` (token68): what a Bearer token may be made of. */
export function isToken68(token: string): boolean {
  return B64TOKEN.test(token);
}
