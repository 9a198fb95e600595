import type { Answer } from './answer.js';

// RFC 3986 pchar without ";" (a path parameter some servers cut off) and "%" (checked apart):
// unreserved / sub-delims / ":" / "@", and "/" between segments.
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,=:@/%]*$/;
// The query is the receiver's to read, not the table's: any visible ASCII.
const QUERY_CHARS = /^[\x21-\x7e]*$/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * Why `target` is not a canonical origin-form request target, or `null` when it is. Canonical: a
 * path that starts with `/`, has no empty (`//`), `.` or `..` segment, no `\` or `;`, and no
 * percent-encoding that a receiver decodes into something else it resolves (`/`, `\`, `.`, any
 * unreserved character, `%00`) or that is not valid. Such a path is one that a proxy (nginx's
 * `merge_slashes`, dot segments, decoding), a static server and WHATWG URL parsing
 * (`new URL(target, base).pathname`) all leave as it is, so the table judges what is served. The
 * query is not judged (visible ASCII), and a `#` anywhere is refused. An absolute-form target
 * (`http://host/path`) does not start with `/` and is refused. The answer is one of a few fixed
 * sentences: it never repeats the target.
 * @example canonicalTargetProblem('/ws/public/../ops') // 'the path holds a ".." segment'
 */
export function canonicalTargetProblem(target: string): string | null {
  if (target.includes('#')) return 'it holds "#"';
  if (!target.startsWith('/')) return 'the path does not start with "/"';
  const queryAt = target.indexOf('?');
  const path = queryAt === -1 ? target : target.slice(0, queryAt);
  const query = queryAt === -1 ? '' : target.slice(queryAt + 1);
  if (path.includes('\\')) return 'the path holds "\\"';
  if (path.includes(';')) return 'the path holds ";"';
  if (!PATH_CHARS.test(path) || !QUERY_CHARS.test(query)) return 'it holds a character that must be percent-encoded';
  const encoding = percentProblem(path);
  if (encoding !== null) return encoding;
  if (path.includes('//')) return 'the path holds an empty segment ("//")';
  for (const segment of path.split('/')) {
    if (segment === '.' || segment === '..') return `the path holds a "${segment}" segment`;
  }
  return null;
}

/**
 * The `400` `invalid_request` answer for a request target that is not canonical (see
 * {@link canonicalTargetProblem}), or `null` for a canonical one. For an adapter that hands the
 * raw target to code that routes on it after the table judged it (an upgrade handler): such a
 * request is answered before authentication, so what is judged is what is served.
 */
export function nonCanonicalTargetAnswer(target: string): Answer | null {
  const problem = canonicalTargetProblem(target);
  if (problem === null) return null;
  return {
    status: 400,
    headers: [],
    code: 'invalid_request',
    message: `the request target is not in canonical form: ${problem}`,
  };
}

function percentProblem(text: string): string | null {
  for (let at = text.indexOf('%'); at !== -1; at = text.indexOf('%', at + 1)) {
    const hex = text.slice(at + 1, at + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return 'it holds an invalid percent-encoding';
    const code = Number.parseInt(hex, 16);
    if (code === 0) return 'it holds "%00"';
    if (code === 0x2f || code === 0x5c) return `it holds an encoded "${String.fromCharCode(code)}"`;
    if (UNRESERVED.test(String.fromCharCode(code))) return 'it holds a percent-encoded unreserved character';
  }
  return null;
}
