import { describe, expect, it } from '@jest/globals';
import { createAuthContext, isConfigError, parseAccessTable, type AuthContext } from '@authlayer/core';
import { judgeMcpMessage, type MessageRefusal } from '../src/mcp/mcp-judge.js';
import { compileMcpTable, mcpEntriesFor } from '../src/mcp/mcp-table.js';

// Name patterns, RFC 6570 templates and `params` in MCP keys: the table they compile to, the
// judgement of a message by them, and what start-up refuses.

const tableOf = (raw: Record<string, unknown>) => compileMcpTable(parseAccessTable(raw, ['jwt'], 'access').access);
const keysOf = (entries: readonly { key: string }[]) => entries.map((entry) => entry.key);
const caller = (scopes: string[] = [], claims: Record<string, unknown> = {}, roles: string[] = []): AuthContext =>
  createAuthContext({ method: 'jwt', userId: 'u', scopes, roles, claims });
const BEARER = { headers: { authorization: 'Bearer t' } };

function judge(
  table: ReturnType<typeof tableOf>,
  method: string,
  name: string | null,
  params: unknown,
  context: AuthContext,
): MessageRefusal | null {
  return judgeMcpMessage(table, { method, name, params }, BEARER, {
    context,
    anonymousBecause: null,
    now: () => 0,
    params: true,
  });
}
const reasonOf = (refusal: MessageRefusal | null) =>
  refusal === null || refusal === 'unscopable' ? refusal : refusal.error.reason;

describe('name patterns and templates in MCP keys', () => {
  const table = tableOf({
    'MCP tools/call admin_*': { roles: ['admin'] },
    'MCP tools/call admin_reset': { scopes: ['reset'] },
    'MCP tools/call *': 'deny',
    'MCP resources/read files://{tenant}/{path}': { scopes: ['files:{tenant}:read'] },
    'MCP resources/read docs://{+path}': 'authenticated',
    'MCP resources/read *': 'deny',
  });

  it('applies the exact key and every matching pattern; * only to names no key names', () => {
    expect(keysOf(mcpEntriesFor(table, 'tools/call', 'admin_reset'))).toEqual([
      'MCP tools/call admin_reset',
      'MCP tools/call admin_*',
    ]);
    expect(keysOf(mcpEntriesFor(table, 'tools/call', 'admin_x'))).toEqual(['MCP tools/call admin_*']);
    expect(keysOf(mcpEntriesFor(table, 'tools/call', 'admin'))).toEqual(['MCP tools/call *']);
    expect(keysOf(mcpEntriesFor(table, 'tools/call', 'xadmin_x'))).toEqual(['MCP tools/call *']);
    expect(reasonOf(judge(table, 'tools/call', 'admin_reset', {}, caller(['reset'])))).toBe('role_missing');
    expect(reasonOf(judge(table, 'tools/call', 'admin_reset', {}, caller([], {}, ['admin'])))).toBe('scope_missing');
    expect(judge(table, 'tools/call', 'admin_reset', {}, caller(['reset'], {}, ['admin']))).toBeNull();
  });

  it('matches a variable to one or more characters other than /, {+var} to / too, as sent', () => {
    const entries = (uri: string) => mcpEntriesFor(table, 'resources/read', uri);
    expect(entries('files://acme/a.txt')[0]?.variables).toEqual({ tenant: 'acme', path: 'a.txt' });
    expect(keysOf(entries('files://acme/a/b'))).toEqual(['MCP resources/read *']);
    expect(keysOf(entries('files:///a'))).toEqual(['MCP resources/read *']);
    expect(entries('files://acme/a%2Fb')[0]?.variables).toEqual({ tenant: 'acme', path: 'a%2Fb' });
    expect(entries('files://ünï/ç')[0]?.variables).toEqual({ tenant: 'ünï', path: 'ç' });
    expect(entries('docs://a/b/c')[0]?.variables).toEqual({ path: 'a/b/c' });
    expect(keysOf(entries('docs://'))).toEqual(['MCP resources/read *']);
  });

  it('forms a scope with the value of a variable; a value that is no scope-token is unscopable', () => {
    const refusal = judge(table, 'resources/read', 'files://acme/a', {}, caller(['files:other:read']));
    expect(refusal !== null && refusal !== 'unscopable' && refusal.error.message).toBe(
      'the scope files:acme:read is required',
    );
    expect(judge(table, 'resources/read', 'files://acme/a', {}, caller(['files:acme:read']))).toBeNull();
    expect(judge(table, 'resources/read', 'files://ünï/a', {}, caller(['files:acme:read']))).toBe('unscopable');
    expect(judge(table, 'resources/read', 'files://a"b/a', {}, caller([]))).toBe('unscopable');
  });
});

describe('params: conditions on the message', () => {
  const table = tableOf({
    'MCP tools/call edit': { params: { 'arguments.mode': ['read', 'list', 1, true, null] } },
    'MCP tools/call files': { params: { 'arguments.tenant': { claim: 'tenant_id' } } },
    'MCP resources/read files://{tenant}/{path}': { scopes: ['files'], params: { '{tenant}': { claim: 'tenant_id' } } },
  });
  const call = (name: string, args: unknown, context = caller()) =>
    judge(table, 'tools/call', name, { name, arguments: args }, context);

  it('accepts a listed value of any JSON scalar type, type included, and refuses the rest', () => {
    for (const mode of ['read', 'list', 1, true, null]) expect(call('edit', { mode })).toBeNull();
    for (const mode of ['write', '1', 'true', 0, false, [], {}, ['read'], { read: true }, undefined]) {
      expect(reasonOf(call('edit', { mode }))).toBe('param_mismatch');
    }
    expect(reasonOf(call('edit', 'read'))).toBe('param_mismatch');
    expect(reasonOf(judge(table, 'tools/call', 'edit', undefined, caller()))).toBe('param_mismatch');
  });

  it('names the path in its message and never the value', () => {
    const refusal = call('edit', { mode: 'secret-value' });
    expect(refusal !== null && refusal !== 'unscopable' && refusal.error.message).toBe(
      'the parameter arguments.mode does not have an accepted value',
    );
    expect(JSON.stringify(refusal)).not.toContain('secret-value');
  });

  it('compares with a claim of the caller (a list claim: contains), a template variable too', () => {
    expect(call('files', { tenant: 'acme' }, caller([], { tenant_id: 'acme' }))).toBeNull();
    expect(call('files', { tenant: 'acme' }, caller([], { tenant_id: ['x', 'acme'] }))).toBeNull();
    expect(reasonOf(call('files', { tenant: 'other' }, caller([], { tenant_id: 'acme' })))).toBe('param_mismatch');
    expect(reasonOf(call('files', { tenant: 'acme' }, caller()))).toBe('param_mismatch');
    const read = (uri: string, context: AuthContext) => judge(table, 'resources/read', uri, { uri }, context);
    expect(read('files://acme/a', caller(['files'], { tenant_id: 'acme' }))).toBeNull();
    // A condition on the message first: no scope would make another tenant's file readable.
    expect(reasonOf(read('files://other/a', caller([], { tenant_id: 'acme' })))).toBe('param_mismatch');
    expect(reasonOf(read('files://acme/a', caller([], { tenant_id: 'acme' })))).toBe('scope_missing');
  });

  it('never reads through a prototype', () => {
    const args = JSON.parse('{"__proto__": {"mode": "read"}}') as unknown;
    expect(reasonOf(call('edit', args))).toBe('param_mismatch');
    expect(reasonOf(call('edit', Object.create({ mode: 'read' }) as unknown))).toBe('param_mismatch');
  });
});

describe('start-up checks of MCP keys', () => {
  const issuesOf = (raw: Record<string, unknown>) => {
    try {
      parseAccessTable(raw, ['jwt'], 'access');
      return [];
    } catch (error) {
      if (!isConfigError(error)) throw error;
      return error.issues.map((issue) => `${issue.path}: ${issue.message}`);
    }
  };

  it('fails a {variable} the key does not have, in params and in scopes, naming it', () => {
    expect(issuesOf({ 'MCP resources/read files://{tenant}/x': { params: { '{user}': ['a'] } } })).toEqual([
      'access.MCP resources/read files://{tenant}/x.params.{user}: user is not a variable of the key (the key has tenant)',
    ]);
    expect(issuesOf({ 'MCP tools/call t': { scopes: ['a:{tenant}'] } })).toEqual([
      'access.MCP tools/call t.scopes.0: tenant is not a variable of the key (the key has none)',
    ]);
  });

  it('fails params on a route key, prototype names in a path, and malformed templates', () => {
    expect(issuesOf({ 'GET /a': { params: { x: ['a'] } } })).toEqual([
      'access.GET /a.params: params applies to MCP keys only ("MCP <method> <name>")',
    ]);
    expect(issuesOf({ 'MCP tools/call t': { params: { 'arguments.__proto__.x': ['a'] } } })).toHaveLength(1);
    expect(issuesOf({ 'MCP tools/call t': { params: { 'a..b': ['a'] } } })).toHaveLength(1);
    expect(issuesOf({ 'MCP resources/read f://{a}{b}': 'authenticated' })).toHaveLength(1);
    expect(issuesOf({ 'MCP resources/read f://{a': 'authenticated' })).toHaveLength(1);
    expect(issuesOf({ 'MCP resources/read f://{+a}/{+b}': 'authenticated' })).toHaveLength(1);
  });
});

describe('a key of some modes, and claims of a caller without claims', () => {
  const table = compileMcpTable(
    parseAccessTable(
      {
        'MCP tools/call token_only': { modes: ['jwt'] },
        'MCP tools/call files': { params: { 'arguments.tenant': { claim: 'tenant_id' } } },
      },
      ['api_key', 'jwt'],
      'access',
    ).access,
  );
  const keyCaller = createAuthContext({ method: 'api_key', userId: 'bot', tenantId: 'acme' });

  it("a caller of another mode is asked for the key's credential (401), one of its mode passes", () => {
    const refusal = judge(table, 'tools/call', 'token_only', {}, keyCaller);
    expect(refusal).toMatchObject({ key: 'MCP tools/call token_only', error: { reason: 'credentials_missing' } });
    expect(judge(table, 'tools/call', 'token_only', {}, caller())).toBeNull();
  });

  it('an API key caller has no claim to compare with, and a null value equals no claim', () => {
    const files = (tenant: unknown, context: AuthContext) =>
      reasonOf(judge(table, 'tools/call', 'files', { name: 'files', arguments: { tenant } }, context));
    expect(files('acme', keyCaller)).toBe('param_mismatch');
    expect(files(null, caller([], { tenant_id: null }))).toBe('param_mismatch');
    expect(files('acme', caller([], { tenant_id: 'acme' }))).toBeNull();
  });
});
