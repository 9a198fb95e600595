import { describe, expect, it } from '@jest/globals';
import { planOf } from '../src/access/access-plan.js';
import { compileTable, matchEntries, planFor } from '../src/access/access-table.js';

// A request's plan is looked up once made for its method and path: it must be the plan matching
// the table would make, for every path, `access.default` and method, however many paths come.

const table = () =>
  compileTable({
    'GET /reports/:id': { permissions: [], scopes: [], roles: ['admin'], any: [], modes: null, tenantParam: 'id' },
    'DELETE /reports/:id': 'deny',
    'POST /invoke': 'authenticated',
    '* /open{/*rest}': 'public',
  });
const request = { method: 'GET', headers: {} };
const fresh = (t: ReturnType<typeof table>, method: string, path: string, fallback: 'deny' | 'authenticated') =>
  planFor(matchEntries(t, method, path), fallback);

describe('the plan of a method and path, made once', () => {
  it('is the same plan matching makes, kept for the next request to that method and path', () => {
    const t = table();
    const first = planOf(t, 'GET', '/reports/7', request, 'authenticated');
    expect(first).toEqual(fresh(t, 'GET', '/reports/7', 'authenticated'));
    expect(first.rules[0]?.params).toEqual({ id: '7' });
    expect(planOf(t, 'GET', '/reports/7', request, 'authenticated')).toBe(first);
    // Another path's parameters are its own.
    expect(planOf(t, 'GET', '/reports/8', request, 'authenticated').rules[0]?.params).toEqual({ id: '8' });
  });

  it('is kept apart by method and by access.default', () => {
    const t = table();
    expect(planOf(t, 'DELETE', '/reports/7', request, 'authenticated')).toMatchObject({ denied: true });
    expect(planOf(t, 'GET', '/reports/7', request, 'authenticated')).toMatchObject({ denied: false });
    expect(planOf(t, 'GET', '/nowhere', request, 'deny')).toMatchObject({ denied: true, deniedBy: 'default' });
    expect(planOf(t, 'GET', '/nowhere', request, 'authenticated')).toMatchObject({ denied: false });
  });

  it('answers as matching does for many more paths than it keeps, and for a very long path', () => {
    const t = table();
    for (let i = 0; i < 3000; i += 1) {
      const path = i % 2 === 0 ? `/reports/${i}` : `/open/${i}`;
      expect(planOf(t, 'GET', path, request, 'deny')).toEqual(fresh(t, 'GET', path, 'deny'));
    }
    const long = `/reports/${'x'.repeat(5000)}`;
    expect(planOf(t, 'GET', long, request, 'deny')).toEqual(fresh(t, 'GET', long, 'deny'));
  });

  it('belongs to its table: a reloaded table makes its own plans', () => {
    const before = table();
    const after = compileTable({ 'GET /reports/:id': 'public' });
    expect(planOf(before, 'GET', '/reports/7', request, 'deny')).toMatchObject({ authentication: 'required' });
    expect(planOf(after, 'GET', '/reports/7', request, 'deny')).toMatchObject({ authentication: 'none' });
  });
});
