import { describe, expect, it } from '@jest/globals';
import { createCarryPool } from '../src/reload/carry-pool.js';

// What a reload keeps and closes (HandlerDeps.carry): one generation's pool takes from the last.
const thing = (closed: string[], name: string) => ({ name, close: () => void closed.push(name) });

describe('createCarryPool', () => {
  it('hands the next generation what it asks for again, and closes the rest once it serves', () => {
    const closed: string[] = [];
    const first = createCarryPool();
    const kept = first.carry.keep('a', () => thing(closed, 'a'));
    first.carry.keep('b', () => thing(closed, 'b'));
    const next = createCarryPool(first);
    expect(next.carry.keep('a', () => thing(closed, 'a2'))).toBe(kept);
    expect(next.carry.keep('a', () => thing(closed, 'a3'))).toBe(kept);
    next.carry.keep('c', () => thing(closed, 'c'));
    next.commit();
    expect(closed).toEqual(['b']);
    next.close();
    expect(closed).toEqual(['b', 'a', 'c']);
  });

  it('a refused generation closes only what it made; a promise is closed once it resolves', async () => {
    const closed: string[] = [];
    const first = createCarryPool();
    first.carry.keep('a', () => thing(closed, 'a'));
    const refused = createCarryPool(first);
    refused.carry.keep('a', () => thing(closed, 'never'));
    void refused.carry.keep('store', () => Promise.resolve(thing(closed, 'store')));
    void refused.carry.keep('failed', () => Promise.reject(new Error('no connection')));
    refused.abort();
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toEqual(['store']);
    first.close();
    expect(closed).toEqual(['store', 'a']);
  });
});
