import { bearerError } from '@authlayer/core';
import type { JwtAlgorithm } from '@authlayer/core';

/** The parts of a compact JWS (RFC 7515 §7.1) and what its protected header says. */
export interface DecodedHeader {
  /** The protected header, a JSON object. */
  readonly header: Readonly<Record<string, unknown>>;
  /** `alg`, one of the allowed algorithms. */
  readonly alg: JwtAlgorithm;
  /** `false` only for RFC 7797's unencoded payload (`b64: false` listed in `crit`). */
  readonly b64: boolean;
}

// jose decodes with a fatal UTF-8 decoder: invalid UTF-8 is refused, a leading BOM is dropped.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes one base64url segment as jose 6 does on Node 20 (`atob` after mapping the URL
 * alphabet): the caller has already checked the alphabet (`[A-Za-z0-9_-]`, no padding), so the
 * only input left that `atob` refuses is a length of 4n + 1. Unused trailing bits are ignored,
 * as `atob` ignores them (so two spellings may decode to the same bytes).
 *
 * @throws AuthError `token_malformed` for a length of 4n + 1.
 */
export function decodeSegment(segment: string): Buffer {
  if (segment.length % 4 === 1) throw bearerError('token_malformed');
  return Buffer.from(segment, 'base64url');
}

/**
 * Parses bytes as jose parses a header or a claims set: strict UTF-8, `JSON.parse` (the last of
 * duplicate members wins), and the result must be a JSON object (not an array, string or null).
 *
 * @throws AuthError `token_malformed`.
 */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(bytes));
  } catch {
    throw bearerError('token_malformed');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bearerError('token_malformed');
  return parsed as Record<string, unknown>;
}

/**
 * Decodes and checks the protected header in jose's order: a JSON object; `crit` understood
 * (RFC 7515 §4.1.11: a non-empty list of non-empty strings, each one an extension we implement,
 * present in the header; the only one is RFC 7797's `b64`, which must then be a boolean); `alg`
 * a non-empty string; `alg` one of `algorithms` (RFC 8725 §3.1; `none` never is).
 *
 * @throws AuthError `token_malformed`, or `algorithm_not_allowed`.
 */
export function decodeHeader(segment: string, algorithms: ReadonlySet<string>): DecodedHeader {
  const header = parseJsonObject(decodeSegment(segment));
  const b64 = checkCrit(header);
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '') throw bearerError('token_malformed');
  if (!algorithms.has(alg)) throw bearerError('algorithm_not_allowed');
  return { header, alg: alg as JwtAlgorithm, b64 };
}

// Tokens of one issuer share a handful of headers: remember that many decoded ones, each short.
const HEADER_MEMORY = 64;
const HEADER_MAX_CHARS = 1024;

/**
 * {@link decodeHeader} with a memory: a header segment decoded before gives the same (frozen)
 * result without being decoded again. Only headers that passed are remembered; the memory is
 * emptied when full, so a flood of distinct headers costs what it would without it.
 */
export function createHeaderDecoder(algorithms: ReadonlySet<string>): (segment: string) => DecodedHeader {
  const known = new Map<string, DecodedHeader>();
  return (segment) => {
    let decoded = known.get(segment);
    if (decoded === undefined) {
      decoded = decodeHeader(segment, algorithms);
      Object.freeze(decoded.header);
      if (known.size >= HEADER_MEMORY) known.clear();
      if (segment.length <= HEADER_MAX_CHARS) known.set(segment, decoded);
    }
    return decoded;
  };
}

/** jose's `validateCrit` then `validateB64`: a `b64` member outside `crit` is ignored. */
function checkCrit(header: Readonly<Record<string, unknown>>): boolean {
  const { crit } = header;
  if (crit === undefined) return true;
  if (!Array.isArray(crit) || crit.length === 0) throw bearerError('token_malformed');
  for (const name of crit) {
    // Only RFC 7797 `b64` is understood; any other name (or a non-string) is refused.
    if (name !== 'b64' || header.b64 === undefined) throw bearerError('token_malformed');
  }
  if (typeof header.b64 !== 'boolean') throw bearerError('token_malformed');
  return header.b64;
}
