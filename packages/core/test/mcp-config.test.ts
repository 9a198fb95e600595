import { describe, expect, it } from '@jest/globals';
import { isMcpKey, parseMcpKey } from '../src/config/mcp-key.js';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

const TOOLS = { 'MCP tools/call get_forecast': { scopes: ['weather:read'] }, 'MCP tools/call *': 'deny' };

describe('mcp section and MCP keys of access', () => {
  it('is absent by default; endpoint with max_body_bytes defaulting to 1 MiB', () => {
    expect(parseAuthConfig({ auth: {} }).mcp).toBeNull();
    const config = parseAuthConfig({
      auth: {},
      mcp: { endpoint: '/mcp' },
      access: { 'POST /mcp': 'authenticated', ...TOOLS, 'MCP resources/read': { scopes: ['files:read'] } },
    });
    expect(config.mcp).toEqual({
      endpoint: '/mcp',
      maxBodyBytes: 1048576,
      filterLists: false,
      challengeScopes: 'required',
      batches: 'refuse',
      allowedHosts: ['localhost', '127.0.0.1', '[::1]'],
      allowedOrigins: [],
    });
    expect(config.access['MCP tools/call *']).toBe('deny');
    expect(config.access['MCP resources/read']).toEqual({
      permissions: [],
      scopes: ['files:read'],
      roles: [],
      any: [],
      modes: null,
      tenantParam: null,
    });
  });

  it('accepts a key of every method that names the endpoint, * and a pattern', () => {
    for (const key of ['* /mcp', 'POST /:server', 'POST /mcp{/*rest}']) {
      expect(
        parseAuthConfig({ auth: {}, mcp: { endpoint: '/mcp' }, access: { [key]: 'authenticated' } }).mcp,
      ).not.toBeNull();
    }
  });

  it.each([
    {
      name: 'MCP keys without mcp',
      raw: { auth: {}, access: { 'POST /mcp': 'authenticated', ...TOOLS } },
      path: 'mcp.endpoint',
      message: /is required: access has MCP keys/,
    },
    {
      name: 'an endpoint no key names',
      raw: { auth: {}, mcp: { endpoint: '/mcp' }, access: { 'GET /mcp': 'authenticated', ...TOOLS } },
      path: 'mcp.endpoint',
      message: /no key of access names it: add "POST \/mcp"/,
    },
    {
      name: 'an endpoint that is no path',
      raw: { auth: {}, mcp: { endpoint: 'mcp' }, access: { 'POST /mcp': 'authenticated' } },
      path: 'mcp.endpoint',
      message: /must be a path such as \/mcp/,
    },
    {
      name: 'a body limit of 0',
      raw: { auth: {}, mcp: { endpoint: '/mcp', max_body_bytes: 0 }, access: { 'POST /mcp': 'authenticated' } },
      path: 'mcp.max_body_bytes',
      message: /at least 1/,
    },
    {
      name: 'a malformed MCP key',
      raw: { auth: {}, mcp: { endpoint: '/mcp' }, access: { 'POST /mcp': 'authenticated', 'MCP  tools/call': 'deny' } },
      path: 'access.MCP  tools/call',
      message: /must be "MCP <method>" or "MCP <method> <name>"/,
    },
    {
      name: 'tenant_param on an MCP key',
      raw: {
        auth: {},
        mcp: { endpoint: '/mcp' },
        access: { 'POST /mcp': 'authenticated', 'MCP tools/call x': { tenant_param: 'tenant' } },
      },
      path: 'access.MCP tools/call x.tenant_param',
      message: /names no route/,
    },
    {
      name: 'a mode outside auth.mode on an MCP key',
      raw: {
        auth: { mode: 'api_key' },
        mcp: { endpoint: '/mcp' },
        access: { 'POST /mcp': 'authenticated', 'MCP tools/call x': { modes: ['jwt'] } },
      },
      path: 'access.MCP tools/call x.modes',
      message: /jwt is not a mode auth.mode lists/,
    },
  ])('refuses $name at $path', ({ raw, path, message }) => {
    let thrown: unknown;
    try {
      parseAuthConfig(raw);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ name: 'ConfigError' });
    const issue = (thrown as { issues: { path: string; message: string }[] }).issues.find((i) => i.path === path);
    expect(issue?.message).toMatch(message);
  });

  it('parses the parts of a key', () => {
    expect(parseMcpKey('MCP tools/call get_forecast')).toEqual({
      key: 'MCP tools/call get_forecast',
      method: 'tools/call',
      name: 'get_forecast',
    });
    expect(parseMcpKey('MCP resources/read')).toEqual({
      key: 'MCP resources/read',
      method: 'resources/read',
      name: null,
    });
    expect(parseMcpKey('MCP tools/call *')?.name).toBe('*');
    expect(parseMcpKey('POST /mcp')).toBeNull();
    expect(parseMcpKey('MCP a b c')).toBeNull();
    expect(isMcpKey('MCP x')).toBe(true);
    expect(isMcpKey('POST /mcp')).toBe(false);
  });
});
