import { headerValues, type AuthRequest, type BearerToken, type Recognition } from '@authlayer/core';
import { readToken } from './read-token.js';
import { decodeSegment, parseJsonObject } from './verify/decode-jws.js';
import { COMPACT_JWS, MAX_TOKEN_BYTES } from './verify/verify-token.js';

/**
 * Whether a request carries a JWT, for several modes on one route (see `Recognition`): a compact
 * JWS whose header is a JSON object with a string `alg` (`none` included, so jwt refuses it with
 * its own reason) is `certain` in the Authorization header and `likely` in the configured cookie
 * (a cookie comes with every request of a browser, a header is sent on purpose); any other token
 * is `unlikely` (jwt would refuse it as malformed). A token of `Authorization: DPoP` counts as one
 * in the header when `readDpopToken` finds it.
 */
export function createTokenRecognizer(
  cookie: string | null,
  readDpopToken?: (request: AuthRequest) => BearerToken | undefined,
): (request: AuthRequest) => Recognition | undefined {
  return (request) => {
    // `Authorization: DPoP <token>` (when DPoP is on) is judged as a Bearer token in the header.
    const bearer = readDpopToken?.(request) ?? readToken(request, cookie);
    if (bearer.kind === 'absent') return undefined;
    if (bearer.kind === 'malformed' || !isCompactJws(bearer.token)) return 'unlikely';
    return cookie === null || headerValues(request, 'authorization').length > 0 ? 'certain' : 'likely';
  };
}

/** The verifier's shape check, plus a header that names an algorithm (an API key with dots is no JWS). */
export function isCompactJws(token: string): boolean {
  if (token.length > MAX_TOKEN_BYTES || !COMPACT_JWS.test(token)) return false;
  try {
    const { alg } = parseJsonObject(decodeSegment(token.slice(0, token.indexOf('.'))));
    return typeof alg === 'string';
  } catch {
    return false;
  }
}
