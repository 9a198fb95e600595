import type { AuthRequest } from './handler.js';

/**
 * Every non-empty value the request carries for one header, in the order sent.
 *
 * Reads `rawHeaders` when the request has them (Node's `IncomingMessage` does): `headers` keeps
 * only the first of several `Authorization` headers, joins repeated custom headers with `", "`,
 * and stops after `maxHeadersCount` headers, so it can hide a second credential. Without
 * `rawHeaders` (a hand-made request) it falls back to `headers`. An empty value counts as not
 * sent, so one empty header and two empty headers mean the same: no credential there.
 *
 * @param name - the header name, any case
 * @example
 * headerValues(req, 'Authorization'); // ['Bearer abc', 'Bearer def'] for two headers
 */
export function headerValues(request: AuthRequest, name: string): readonly string[] {
  const lower = name.toLowerCase();
  const raw = request.rawHeaders;
  if (raw !== undefined) {
    const values: string[] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const value = raw[i + 1] as string;
      if (value !== '' && (raw[i] as string).toLowerCase() === lower) values.push(value);
    }
    return values;
  }
  // Own properties only: Node's headers object inherits from Object.prototype, and names such as
  // `constructor` are valid header names, so a plain lookup would return a function.
  const value = Object.hasOwn(request.headers, lower) ? request.headers[lower] : undefined;
  if (value === undefined) return [];
  return (typeof value === 'string' ? [value] : value).filter((v) => v !== '');
}
