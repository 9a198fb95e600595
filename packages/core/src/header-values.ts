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
  if (raw === undefined) return parsedValues(request, lower);
  const values: string[] = [];
  const anyLength = lengthMayDiffer(lower);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const value = raw[i + 1] as string;
    if (value !== '' && isNamed(raw[i] as string, lower, anyLength)) values.push(value);
  }
  return values;
}

/**
 * The one value {@link headerValues} would list for a header, without building the list (for a
 * per-request path): `''` when the request carries no non-empty value for it, the value when it
 * carries exactly one, and `null` when it carries several.
 *
 * @param name - the header name, any case
 * @example
 * soleHeaderValue(req, 'X-API-Key'); // 'abc' for one header, null for two, '' for none
 */
export function soleHeaderValue(request: AuthRequest, name: string): string | null {
  const lower = name.toLowerCase();
  const raw = request.rawHeaders;
  if (raw === undefined) {
    const values = parsedValues(request, lower);
    return values.length > 1 ? null : (values[0] ?? '');
  }
  let found = '';
  const anyLength = lengthMayDiffer(lower);
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const value = raw[i + 1] as string;
    if (value === '' || !isNamed(raw[i] as string, lower, anyLength)) continue;
    if (found !== '') return null;
    found = value;
  }
  return found;
}

function parsedValues(request: AuthRequest, lower: string): readonly string[] {
  // Own properties only: Node's headers object inherits from Object.prototype, and names such as
  // `constructor` are valid header names, so a plain lookup would return a function.
  const value = Object.hasOwn(request.headers, lower) ? request.headers[lower] : undefined;
  if (value === undefined) return [];
  return (typeof value === 'string' ? [value] : value).filter((v) => v !== '');
}

// `rawName.toLowerCase() === lower`, without lower-casing (a new string for each mixed-case name)
// names that cannot match. Lower-casing keeps the length of every string except where U+0130 (İ)
// becomes `i` + U+0307; so unless `lower` holds a U+0307, a name of another length never matches.
function isNamed(rawName: string, lower: string, anyLength: boolean): boolean {
  return (rawName.length === lower.length || anyLength) && rawName.toLowerCase() === lower;
}

function lengthMayDiffer(lower: string): boolean {
  return lower.includes('\u0307');
}
