import { describe, expect, it } from '@jest/globals';
import type { AccessValue } from '@authlayer/core';
import { compileTable } from '../src/access/access-table.js';
import { messagesOf, mismatchedHeader } from '../src/mcp/mcp-messages.js';
import { compileMcpTable, mcpEntriesFor } from '../src/mcp/mcp-table.js';

const ACCESS: Record<string, AccessValue> = {
  'POST /mcp': 'authenticated',
  'MCP tools/call': 'authenticated',
  'MCP tools/call get_forecast': 'optional',
  'MCP tools/call *': 'deny',
  'MCP resources/read file:///a': 'public',
  'MCP prompts/get *': 'deny',
};
const keysOf = (entries: readonly { key: string }[]) => entries.map((entry) => entry.key);

describe('the MCP keys of the access table', () => {
  const table = compileMcpTable(ACCESS);

  it('applies the method key to every message, the name key to its name, * to every other name', () => {
    expect(keysOf(mcpEntriesFor(table, 'tools/call', 'get_forecast'))).toEqual([
      'MCP tools/call',
      'MCP tools/call get_forecast',
    ]);
    expect(keysOf(mcpEntriesFor(table, 'tools/call', 'other'))).toEqual(['MCP tools/call', 'MCP tools/call *']);
    // A message without a name is judged by the method's default too (fail closed).
    expect(keysOf(mcpEntriesFor(table, 'tools/call', null))).toEqual(['MCP tools/call', 'MCP tools/call *']);
    expect(keysOf(mcpEntriesFor(table, 'resources/read', 'file:///a'))).toEqual(['MCP resources/read file:///a']);
    expect(keysOf(mcpEntriesFor(table, 'resources/read', 'file:///b'))).toEqual([]);
    expect(keysOf(mcpEntriesFor(table, 'prompts/get', 'p'))).toEqual(['MCP prompts/get *']);
    expect(mcpEntriesFor(table, 'tools/list', null)).toEqual([]);
  });

  it('leaves MCP keys out of the route table', () => {
    expect(compileTable(ACCESS).entries.map((entry) => entry.route.key)).toEqual(['POST /mcp']);
  });

  it('reads the method and name of each request or notification, and skips responses', () => {
    expect(
      messagesOf([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } },
        { jsonrpc: '2.0', method: 'resources/read', params: { uri: 'file:///x', name: 'n' } },
        { jsonrpc: '2.0', id: 2, method: 'prompts/get', params: { uri: 'u' } },
        { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { name: 'only-a-name' } },
        { jsonrpc: '2.0', id: 4, method: 'tools/list', params: 'odd' },
        { jsonrpc: '2.0', id: 5, result: {} },
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 7 } },
        null,
        'text',
      ]),
    ).toEqual([
      { method: 'tools/call', name: 'a', params: { name: 'a' } },
      { method: 'resources/read', name: 'file:///x', params: { uri: 'file:///x', name: 'n' } },
      { method: 'prompts/get', name: 'u', params: { uri: 'u' } },
      { method: 'resources/subscribe', name: 'only-a-name', params: { name: 'only-a-name' } },
      { method: 'tools/list', name: null, params: 'odd' },
      { method: 'tools/call', name: null, params: { name: 7 } },
    ]);
  });

  it('finds the Mcp-Method or Mcp-Name header that says otherwise than any message', () => {
    const messages = [{ method: 'tools/call', name: 'a' }];
    const headers = (value: Record<string, string>) => ({ headers: value });
    expect(mismatchedHeader(headers({}), messages)).toBeNull();
    expect(mismatchedHeader(headers({ 'mcp-method': 'tools/call', 'mcp-name': 'a' }), messages)).toBeNull();
    expect(mismatchedHeader(headers({ 'mcp-method': 'tools/list' }), messages)).toBe('Mcp-Method');
    expect(mismatchedHeader(headers({ 'mcp-name': 'b' }), messages)).toBe('Mcp-Name');
    expect(mismatchedHeader(headers({ 'mcp-name': 'a' }), [...messages, { method: 'tools/call', name: 'b' }])).toBe(
      'Mcp-Name',
    );
  });
});
