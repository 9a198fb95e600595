import { headerValues, type AuthRequest, type BearerToken } from '@authlayer/core';
import { isToken68, readSchemeCandidate } from '@authlayer/core/internal';

// The value of a token in a cookie: what RFC 6750's b64token allows, the shape of a JWT.
const COOKIE_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const ABSENT: BearerToken = Object.freeze({ kind: 'absent' });
const MALFORMED: BearerToken = Object.freeze({ kind: 'malformed' });

/**
 * Reads the token of a request: `Authorization: Bearer <token>`, or, when `cookie` is set and
 * the request has no Authorization header at all, the cookie of that name. The header always
 * wins: a request with an Authorization header (of any scheme) never has its cookie read.
 * A cookie value may be quoted (RFC 6265 §4.1.1); the first cookie of the name counts.
 */
export function readToken(request: AuthRequest, cookie: string | null): BearerToken {
  const read = readTokenCandidate(request, cookie);
  return read.kind === 'token' && !isToken68(read.token) ? MALFORMED : read;
}

/**
 * {@link readToken} without the syntax check of a token in the Authorization header: the handler
 * looks the token up among the verified ones first (each passed the check) and checks only a token
 * it does not find, so the token a client sends on every request is not scanned each time.
 */
export function readTokenCandidate(request: AuthRequest, cookie: string | null): BearerToken {
  if (cookie === null || headerValues(request, 'authorization').length > 0)
    return readSchemeCandidate(request, 'bearer');
  const value = cookieValue(headerValues(request, 'cookie').join('; '), cookie);
  if (value === undefined) return ABSENT;
  return COOKIE_TOKEN.test(value) ? { kind: 'token', token: value } : MALFORMED;
}

/** RFC 6265 §5.4: `name=value` pairs separated by `;`; `undefined` when the name is absent. */
function cookieValue(header: string, name: string): string | undefined {
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals === -1 || pair.slice(0, equals).trim() !== name) continue;
    const value = pair.slice(equals + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}
