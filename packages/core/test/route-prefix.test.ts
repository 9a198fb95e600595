import { describe, expect, it } from '@jest/globals';
import { match } from 'path-to-regexp';
import { compileRouteKey } from '../src/config/access-schema.js';

// compileRouteKey refuses a path by the pattern's literal beginning before it runs the regular
// expression. A differential test: over many spellings (letter case, look-alike letters that fold
// to ASCII under Unicode case folding, slashes, percent-encodings), matchPath must answer exactly
// what path-to-regexp alone answers with the same options.

const PATTERNS = [
  '/',
  '/invoke',
  '/Reports/:id',
  '/reports/:id',
  '/users/:id/profile',
  '/files/*path',
  '/docs{/*rest}',
  '/a{/:b}/c',
  '/api/v1/resource-7/:id{/*rest}',
  '/data.json',
  '/a\\:b/:c',
  '/kelvin/:k',
  '/state{s}/:id',
  '/caf%C3%A9/:id',
  '/:lang/home',
  '{/:tenant}/items',
  '/*all',
  '/v1;x/:y',
  '/reports/',
];

/** path-to-regexp alone, as compileRouteKey configures it (trailing slashes dropped, then retried). */
function reference(pattern: string) {
  const loose = pattern === '/' ? pattern : pattern.replace(/\/+$/, '');
  const matcher = match(loose, {
    sensitive: false,
    end: true,
    trailing: true,
    decode: (value: string) => (value.length === 0 ? value : decodeURIComponent(value)),
  });
  return (path: string) => {
    const found = matcher(path) || (path.endsWith('//') && matcher(path.replace(/\/+$/, '/')));
    return found === false ? false : found.params;
  };
}

const outcome = (run: () => unknown) => {
  try {
    return { value: run() };
  } catch (error) {
    return { threw: (error as Error).name };
  }
};

// Letters that Unicode case folding (the regular expression's `u` flag, not used here) would map
// to ASCII ones: a path spelled with them matches in neither.
const LOOK_ALIKES: Record<string, string[]> = {
  k: ['\u212a', 'K'],
  s: ['\u017f', 'S'],
  i: ['\u0130', '\u0131', 'I'],
  e: ['\u00e9', 'E'],
  '%': ['%25'],
};

function spellings(path: string): string[] {
  const out = new Set([path, path.toUpperCase(), path.toLowerCase(), `${path}/`, `${path}//`, `/${path}`]);
  out.add(path.replace(/\/+$/, ''));
  out.add(path.replace(/^\//, '//'));
  out.add(path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`));
  out.add(`${path}%zz`);
  [...path].forEach((char, index) => {
    for (const other of LOOK_ALIKES[char] ?? []) out.add(path.slice(0, index) + other + path.slice(index + 1));
  });
  for (let cut = 0; cut <= path.length; cut += 1) out.add(path.slice(0, cut));
  return [...out];
}

describe('compileRouteKey: the literal beginning refuses only what the pattern refuses', () => {
  it('answers as path-to-regexp alone over every spelling of every pattern', () => {
    let compared = 0;
    let matched = 0;
    const divergences: string[] = [];
    for (const pattern of PATTERNS) {
      const route = compileRouteKey(`GET ${pattern}`);
      const expected = reference(pattern);
      const paths = new Set(PATTERNS.flatMap((other) => compileRouteKey(`GET ${other}`).examples).flatMap(spellings));
      for (const path of paths) {
        const ours = outcome(() => route.matchPath(path));
        const theirs = outcome(() => expected(path));
        compared += 1;
        if ('value' in theirs && theirs.value !== false) matched += 1;
        if (JSON.stringify(ours) !== JSON.stringify(theirs)) divergences.push(`${pattern} ${JSON.stringify(path)}`);
        // A path the pattern matches has the first segment the pattern fixes.
        const segment = /^\/([^/]*)/.exec(path)?.[1]?.toLowerCase();
        if (
          'value' in theirs &&
          theirs.value !== false &&
          route.firstSegment !== null &&
          route.firstSegment !== segment
        )
          divergences.push(`${pattern} fixes ${route.firstSegment}, matched ${JSON.stringify(path)}`);
      }
    }
    expect(divergences).toEqual([]);
    // Not vacuous: thousands of paths, hundreds of which match.
    expect(compared).toBeGreaterThan(5_000);
    expect(matched).toBeGreaterThan(300);
  });

  it('names the first segment a pattern fixes, and none where a parameter or group may extend it', () => {
    const segments = Object.fromEntries(
      PATTERNS.map((pattern) => [pattern, compileRouteKey(`GET ${pattern}`).firstSegment]),
    );
    expect(segments).toMatchObject({
      '/': null,
      '/invoke': 'invoke',
      '/Reports/:id': 'reports',
      '/files/*path': 'files',
      '/docs{/*rest}': null,
      '/a{/:b}/c': null,
      '/data.json': 'data.json',
      '/a\\:b/:c': 'a:b',
      '/state{s}/:id': null,
      '/:lang/home': null,
      '{/:tenant}/items': null,
      '/reports/': 'reports',
    });
  });

  it('matches ASCII letters in either case, and no look-alike', () => {
    const route = compileRouteKey('GET /Kelvin/:k');
    expect(route.matchPath('/kELVIN/1')).toEqual({ k: '1' });
    expect(route.matchPath('/\u212aelvin/1')).toBe(false);
    expect(compileRouteKey('GET /state/:s').matchPath('/\u017ftate/1')).toBe(false);
    expect(compileRouteKey('GET /caf%C3%A9/:id').matchPath('/CAF%c3%a9/1')).toEqual({ id: '1' });
    expect(compileRouteKey('GET /caf%C3%A9/:id').matchPath('/CAF\u00e9/1')).toBe(false);
  });
});

describe('route keys', () => {
  it('keeps an empty splat segment as Express does, and the root pattern as it is', () => {
    expect(compileRouteKey('GET /files/*path').matchPath('/files/a//b')).toEqual({ path: ['a', '', 'b'] });
    expect(compileRouteKey('GET /').matchPath('/')).toEqual({});
    expect(compileRouteKey('GET /a/').matchPath('/a')).toEqual({});
  });
});
