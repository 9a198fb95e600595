import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createForeignCheck } from '../src/mcp/foreign-request.js';
import { compileBelow } from '../src/mcp/mcp-paths.js';

// What the MCP gate covers (the endpoint and every path below it, as the table matches routes),
// and the transport's DNS-rebinding check of Host and Origin, framework-free.

const mcpOf = (mcp: object, resource: object | null = { identifier: 'https://mcp.example.com/mcp' }) =>
  parseAuthConfig({
    auth: {},
    mcp: { endpoint: '/mcp', ...mcp },
    access: { 'POST /mcp': 'authenticated' },
    ...(resource === null ? {} : { resource }),
  }).mcp!;
const headers = (host: string | undefined, origin?: string) => ({
  headers: { ...(host === undefined ? {} : { host }), ...(origin === undefined ? {} : { origin }) },
});

describe('the paths below mcp.endpoint', () => {
  it('covers the endpoint and every path below it, in either case, with trailing slashes', () => {
    const covers = compileBelow('/mcp');
    const covered = ['/mcp', '/mcp/', '/mcp//', '/mcp/x', '/mcp/%2e', '/mcp/a/b', '/MCP/x', '/mcp//x', '/mcp/%zz'];
    expect(covered.filter((path) => !covers(path))).toEqual([]);
    expect(['/mcpx', '/x', '/api/mcp', '/mcp%2fx', '/'].filter(covers)).toEqual([]);
  });

  it('takes an endpoint written with a trailing slash, a parameter, or at the root', () => {
    expect(compileBelow('/mcp/')('/mcp/x')).toBe(true);
    expect(compileBelow('/t/:tenant/mcp')('/t/a/mcp/x')).toBe(true);
    expect(compileBelow('/t/:tenant/mcp')('/t/a/other')).toBe(false);
    expect(compileBelow('/')('/anything/at/all')).toBe(true);
    expect(compileBelow('/mcp{/*rest}')('/mcp/a/b')).toBe(true);
  });
});

describe('the Host and Origin check of an MCP endpoint', () => {
  it('allows the host of resource.identifier and the loopback names on any port, no Origin or its own', () => {
    const check = createForeignCheck(mcpOf({}));
    for (const host of ['mcp.example.com', 'MCP.example.com:443', 'localhost:3000', '127.0.0.1', '[::1]:8080']) {
      expect([host, check(headers(host))]).toEqual([host, null]);
    }
    expect(check(headers('mcp.example.com', 'https://mcp.example.com'))).toBeNull();
  });

  it('refuses a foreign or malformed Host, a missing one, and a foreign, null or repeated Origin', () => {
    const check = createForeignCheck(mcpOf({}));
    for (const host of ['evil.example.com', 'mcp.example.com.evil.com', 'localhost.evil.com', '[::2]', '::1', '']) {
      expect([host, check(headers(host))]).toEqual([host, 'host_not_allowed']);
    }
    expect(check(headers(undefined))).toBe('host_not_allowed');
    expect(check({ headers: { host: ['localhost', 'evil.example.com'] } })).toBe('host_not_allowed');
    for (const origin of [
      'http://evil.example.com',
      'null',
      'http://mcp.example.com',
      'https://mcp.example.com.evil.com',
      '',
    ]) {
      expect([origin, check(headers('localhost', origin))]).toEqual([origin, 'origin_not_allowed']);
    }
    expect(check({ headers: { host: 'localhost', origin: ['https://mcp.example.com', 'x'] } })).toBe(
      'origin_not_allowed',
    );
  });

  it('takes a header given as a list of one value as that value', () => {
    const check = createForeignCheck(mcpOf({}));
    expect(check({ headers: { host: ['localhost:3000'], origin: ['https://mcp.example.com'] } })).toBeNull();
    expect(check({ headers: { host: ['evil.example.com'] } })).toBe('host_not_allowed');
    expect(check({ headers: { host: ['localhost'], origin: ['http://evil.example.com'] } })).toBe('origin_not_allowed');
  });

  it('without resource: loopback hosts only, and no Origin accepted (a request without one passes)', () => {
    const check = createForeignCheck(mcpOf({}, null));
    expect([check(headers('localhost:1')), check(headers('mcp.example.com'))]).toEqual([null, 'host_not_allowed']);
    expect(check(headers('localhost', 'http://localhost:1'))).toBe('origin_not_allowed');
  });

  it('matches a listed port exactly, and turns a check off with ["*"]', () => {
    const ported = createForeignCheck(mcpOf({ allowed_hosts: ['mcp.internal:8443'] }));
    expect([
      ported(headers('mcp.internal:8443')),
      ported(headers('mcp.internal')),
      ported(headers('localhost')),
    ]).toEqual([null, 'host_not_allowed', 'host_not_allowed']);
    const open = createForeignCheck(mcpOf({ allowed_hosts: ['*'], allowed_origins: ['*'] }));
    expect(open(headers('evil.example.com', 'http://evil.example.com'))).toBeNull();
    expect(open(headers(undefined, 'null'))).toBeNull();
  });
});
