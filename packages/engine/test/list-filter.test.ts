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
