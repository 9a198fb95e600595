import { describe, expect, it } from '@jest/globals';
import { createAuthContext, parseAccessTable } from '@authlayer/core';
import { filterListResult } from '../src/mcp/list-filter.js';
import { compileMcpTable } from '../src/mcp/mcp-table.js';

// filterListResult judges many refusals it never throws: it captures no stack for them, and leaves
// the process's Error.stackTraceLimit as it found it, also when an entry's judgement throws.

const table = compileMcpTable(
  parseAccessTable(
    { 'MCP tools/call admin_*': { roles: ['admin'] }, 'MCP tools/call *': 'deny' },
    ['api_key'],
    'access',
  ).access,
);
const caller = {
  context: createAuthContext({ method: 'api_key', userId: 'u', roles: [] }),
  anonymousBecause: null,
  request: { headers: {} },
  now: () => 0,
};

describe('filterListResult and Error.stackTraceLimit', () => {
  it('restores the limit it found after a list', () => {
    const before = Error.stackTraceLimit;
    Error.stackTraceLimit = 17;
    try {
      const listed = filterListResult(table, 'tools/list', { tools: [{ name: 'admin_x' }, { name: 'y' }] }, caller);
      expect(listed).toEqual({ tools: [] });
      expect(Error.stackTraceLimit).toBe(17);
    } finally {
      Error.stackTraceLimit = before;
    }
  });

  it('restores it when judging an entry throws', () => {
    const before = Error.stackTraceLimit;
    const entries = { tools: [{ name: 'admin_x' }] };
    // A caller whose context throws when read: the judgement fails half-way.
    const context = new Proxy(caller.context, {
      get: () => {
        throw new Error('boom');
      },
    });
    const trap = { ...caller, context };
    expect(() => filterListResult(table, 'tools/list', entries, trap)).toThrow('boom');
    expect(Error.stackTraceLimit).toBe(before);
  });
});

describe('filterListResult: what it leaves as it is', () => {
  const open = compileMcpTable(
    parseAccessTable(
      { 'MCP tools/call admin_*': { roles: ['admin'] }, 'MCP tools/call scoped': { scopes: ['s:1'] } },
      ['api_key'],
      'access',
    ).access,
  );

  it('a method that is no list, a result that is no object, a list field that is no array', () => {
    const result = { tools: [{ name: 'admin_x' }] };
    expect(filterListResult(open, 'tools/call', result, caller)).toBe(result);
    expect(filterListResult(open, 'tools/list', null, caller)).toBeNull();
    expect(filterListResult(open, 'tools/list', 'text', caller)).toBe('text');
    const odd = { tools: { name: 'admin_x' } };
    expect(filterListResult(open, 'tools/list', odd, caller)).toBe(odd);
  });

  it('drops entries without a name (nothing to call), keeps the rest of the result', () => {
    const listed = filterListResult(
      open,
      'tools/list',
      { tools: ['admin_x', null, { title: 'no name' }, { name: 7 }, { name: 'free' }], nextCursor: 'c' },
      caller,
    );
    expect(listed).toEqual({ tools: [{ name: 'free' }], nextCursor: 'c' });
  });

  it('an entry refused for want of scopes keeps its own _meta beside the scopes it needs', () => {
    const listed = filterListResult(
      open,
      'tools/list',
      {
        tools: [
          { name: 'scoped', _meta: { owner: 'ops' } },
          { name: 'scoped', _meta: null },
        ],
      },
      caller,
    );
    expect(listed).toEqual({
      tools: [
        { name: 'scoped', _meta: { owner: 'ops', 'authlayer/scopes': ['s:1'] } },
        { name: 'scoped', _meta: { 'authlayer/scopes': ['s:1'] } },
      ],
    });
  });
});
