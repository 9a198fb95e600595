import { describe, expect, it } from '@jest/globals';
import { parseAccessTable, type AccessValue } from '@authlayer/core';
import { compileTable, matchEntries, planFor, type AccessTable } from '../src/access/access-table.js';

// The table is indexed by a path's first segment; a request must find exactly the entries (in
// table order, with the same parameters) that trying every entry in turn finds.

const KEYS = [
  'POST /invoke',
  'GET /reports/:id',
  '* /reports/:id/files/*path',
  'GET /Reports',
  'DELETE /users/:id',
  'GET /docs{/*rest}',
  'GET /:lang/home',
  '* {/:tenant}/items',
  'GET /',
  '* /*all',
  'PUT /a{/:b}/c',
  'GET /data.json',
  'GET /state{s}/:id',
  'GET /api/v1/resource-1/:id{/*rest}',
  '* /api/v2/resource-2/:id{/*rest}',
];

/** Every entry tried in turn: what matchEntries answered before the table had an index. */
function everyEntry(table: AccessTable, method: string, path: string) {
  return table.entries.flatMap((entry) => {
    const { route } = entry;
    if (route.method !== '*' && route.method !== method && !(method === 'HEAD' && route.method === 'GET')) return [];
    let params;
    try {
      params = route.matchPath(path);
    } catch {
      params = null;
    }
    return params === false ? [] : [{ entry, params }];
  });
}

function spellings(path: string): string[] {
  const out = new Set([path, path.toUpperCase(), `${path}/`, `${path}//`, `/${path}`, path.replace(/^\//, '')]);
  out.add(path.replace(/^\/(.)/, (_, c: string) => `/%${c.charCodeAt(0).toString(16)}`));
  out.add(path.replace(/k/g, '\u212a').replace(/s/g, '\u017f').replace(/i/g, '\u0130'));
  out.add(`http://127.0.0.1${path}`);
  out.add(`${path}%zz`);
  return [...out];
}

describe('the access table indexed by first segment', () => {
  const table = compileTable(Object.fromEntries(KEYS.map((key): [string, AccessValue] => [key, 'authenticated'])));
  const paths = new Set(table.entries.flatMap((entry) => entry.route.examples).flatMap(spellings));
  paths.add('*');
  paths.add('');

  it('finds what trying every entry finds, for every method and spelling', () => {
    let compared = 0;
    let found = 0;
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PROPFIND'])
      for (const path of paths) {
        const indexed = matchEntries(table, method, path);
        expect({ method, path, matched: indexed }).toEqual({ method, path, matched: everyEntry(table, method, path) });
        compared += 1;
        found += indexed.length;
      }
    // Not vacuous: hundreds of requests, many of them matched.
    expect(compared).toBeGreaterThan(500);
    expect(found).toBeGreaterThan(500);
  });

  it('tries only the entries of the first segment and those that fix none', () => {
    expect(table.bySegment.get('invoke')?.map(({ route }) => route.key)).toEqual([
      'POST /invoke',
      'GET /docs{/*rest}',
      'GET /:lang/home',
      '* {/:tenant}/items',
      'GET /',
      '* /*all',
      'PUT /a{/:b}/c',
      'GET /state{s}/:id',
    ]);
    expect(table.bySegment.get('reports')).toHaveLength(3 + 7);
    expect(table.unfixed).toHaveLength(7);
  });
});

describe('a key Express cannot parse (a Fastify wildcard)', () => {
  const table = compileTable({ 'GET /files/*': 'public', 'GET /files/:name': 'authenticated' });

  it('is listed with why, and matches no path: the other keys still do', () => {
    expect(table.unparsed).toEqual([{ key: 'GET /files/*', message: expect.stringContaining('/files/*') }]);
    expect(matchEntries(table, 'GET', '/files/*').map(({ entry }) => entry.route.key)).toEqual(['GET /files/:name']);
    expect(matchEntries(table, 'GET', '/files/a/b')).toEqual([]);
  });

  it('keeps its method and pattern, and matches no path when asked directly', () => {
    const [entry] = table.entries;
    expect(entry?.route).toMatchObject({ key: 'GET /files/*', method: 'GET', pattern: '/files/*', params: [] });
    // What an adapter walking the entries itself (the Express router's checks) is told.
    expect(entry?.route.matchPath('/files/x')).toBe(false);
  });
});

describe('planFor: overlapping entries', () => {
  const { access } = parseAccessTable(
    {
      'GET /a/:id': 'authenticated',
      '* /a{/*rest}': 'optional',
      'GET /b': { roles: ['admin'], modes: ['jwt', 'api_key'] },
      '* /b': { roles: ['auditor'], modes: ['api_key', 'oauth2'] },
    },
    ['api_key', 'jwt', 'oauth2'],
    'access',
  );
  const table = compileTable(access);

  it('a weaker entry after a stronger one leaves the authentication and the key that asked', () => {
    expect(planFor(matchEntries(table, 'GET', '/a/7'), 'authenticated')).toMatchObject({
      authentication: 'required',
      askedBy: 'GET /a/:id',
    });
  });

  it('modes narrow to what every rule allows, and every rule applies', () => {
    const plan = planFor(matchEntries(table, 'GET', '/b'), 'authenticated');
    expect(plan.modes).toEqual(['api_key']);
    expect(plan.rules.map((rule) => rule.key)).toEqual(['GET /b', '* /b']);
  });
});
