import { describe, expect, it } from '@jest/globals';
import { createAuthContext, parseAccessTable, type AuthContext } from '@authlayer/core';
import { filterListResult } from '../src/mcp/list-filter.js';
import { judgeMcpMessage } from '../src/mcp/mcp-judge.js';
import { compileMcpTable, type McpTable } from '../src/mcp/mcp-table.js';

// 10 000 random (credential, entry, arguments) cases over generated tables: an entry the filtered
// tools/list leaves out is refused when called, and an entry it keeps is refused, if at all, only
// for want of scopes (which it then lists) or by a params condition on the arguments.

/** mulberry32: a seeded PRNG, so a failure replays. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['a_one', 'a_two', 'b_one', 'admin_x', 'tool'];
const VALUES = ['public', 'authenticated', 'deny', { roles: ['admin'] }, { scopes: ['s1'] }, { scopes: ['s1', 's2'] }];
const RULES = [...VALUES, { roles: ['admin'], scopes: ['s2'] }, { params: { 'arguments.mode': ['read'] } }];
const KEYS = [
  'MCP tools/call a_*',
  'MCP tools/call admin_*',
  'MCP tools/call *',
  'MCP tools/call',
  ...NAMES.map((n) => `MCP tools/call ${n}`),
];

function tableFrom(random: () => number): McpTable {
  const raw: Record<string, unknown> = {};
  for (const key of KEYS) if (random() < 0.4) raw[key] = RULES[Math.floor(random() * RULES.length)];
  return compileMcpTable(parseAccessTable(raw, ['jwt'], 'access').access);
}

function callerFrom(random: () => number): AuthContext {
  const pick = (names: string[]) => names.filter(() => random() < 0.5);
  return createAuthContext({ method: 'jwt', userId: 'u', roles: pick(['admin']), scopes: pick(['s1', 's2']) });
}

const REQUEST = { headers: { authorization: 'Bearer t' } };
const judged = (context: AuthContext, params: boolean) => ({ context, anonymousBecause: null, now: () => 0, params });

/** The cases where list and call disagree, for `filter` (the real one, or a planted defect). */
function disagreements(cases: number, filter: typeof filterListResult): number {
  const random = prng(46);
  let found = 0;
  for (let i = 0; i < cases; i += 1) {
    const table = tableFrom(random);
    const context = callerFrom(random);
    const name = NAMES[Math.floor(random() * NAMES.length)] as string;
    const args = random() < 0.5 ? { mode: 'read' } : { mode: 'write' };
    const listed = filter(
      table,
      'tools/list',
      { tools: [{ name }] },
      { context, anonymousBecause: null, request: REQUEST, now: () => 0 },
    ) as { tools: { name: string; _meta?: Record<string, string[]> }[] };
    const entry = listed.tools[0];
    const call = judgeMcpMessage(
      table,
      { method: 'tools/call', name, params: { name, arguments: args } },
      REQUEST,
      judged(context, true),
    );
    const reason = call === null || call === 'unscopable' ? null : call.error.reason;
    const agrees =
      entry === undefined
        ? reason !== null && reason !== 'scope_missing' && reason !== 'param_mismatch'
        : reason === null || reason === 'param_mismatch' || (reason === 'scope_missing' && entry._meta !== undefined);
    if (!agrees) found += 1;
  }
  return found;
}

describe('filtered lists and calls', () => {
  it('never disagree over 10 000 random cases', () => {
    expect(disagreements(10_000, filterListResult)).toBe(0);
  });

  it('catches a planted disagreement (a filter that keeps every entry)', () => {
    expect(disagreements(2_000, (_table, _method, result) => result)).toBeGreaterThan(0);
  });
});
