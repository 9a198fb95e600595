import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '../src/config/parse-auth-config.js';

// mcp.allowed_hosts and mcp.allowed_origins (the MCP transport's DNS-rebinding rule): their
// defaults with and without resource.identifier, what a written list becomes, and what is refused.

const ACCESS = { 'POST /mcp': 'authenticated' };
const parse = (mcp: object, resource?: object) =>
  parseAuthConfig({ auth: {}, mcp: { endpoint: '/mcp', ...mcp }, access: ACCESS, ...(resource ? { resource } : {}) })
    .mcp;

function issueOf(mcp: object): { path: string; message: string }[] {
  try {
    parse(mcp);
  } catch (error) {
    expect(error).toMatchObject({ name: 'ConfigError' });
    return (error as { issues: { path: string; message: string }[] }).issues;
  }
  throw new Error('parsed');
}

describe('mcp.allowed_hosts and mcp.allowed_origins', () => {
  it('default to the host name and origin of resource.identifier, and the loopback names', () => {
    const mcp = parse({}, { identifier: 'https://MCP.example.com:8443/mcp' });
    expect(mcp?.allowedHosts).toEqual(['mcp.example.com', 'localhost', '127.0.0.1', '[::1]']);
    expect(mcp?.allowedOrigins).toEqual(['https://mcp.example.com:8443']);
  });

  it('default, without resource, to the loopback names and no origin', () => {
    expect(parse({})).toMatchObject({ allowedHosts: ['localhost', '127.0.0.1', '[::1]'], allowedOrigins: [] });
  });

  it('take a written list as a browser would send it: lower case, an origin without its default port', () => {
    const mcp = parse({
      allowed_hosts: ['API.example.com', 'mcp.example.com:8443', '[::1]:3000', 'mcp_server'],
      allowed_origins: ['https://App.example.com:443', 'http://localhost:6274/'],
    });
    expect(mcp?.allowedHosts).toEqual(['api.example.com', 'mcp.example.com:8443', '[::1]:3000', 'mcp_server']);
    expect(mcp?.allowedOrigins).toEqual(['https://app.example.com', 'http://localhost:6274']);
  });

  it('take ["*"] (the check off) and an empty origin list (no Origin accepted)', () => {
    expect(parse({ allowed_hosts: ['*'], allowed_origins: ['*'] })).toMatchObject({
      allowedHosts: ['*'],
      allowedOrigins: ['*'],
    });
    expect(parse({ allowed_origins: [] }, { identifier: 'https://mcp.example.com/mcp' })?.allowedOrigins).toEqual([]);
  });

  it.each([
    { mcp: { allowed_hosts: [] }, path: 'mcp.allowed_hosts', message: /must not be empty/ },
    { mcp: { allowed_hosts: ['*', 'localhost'] }, path: 'mcp.allowed_hosts', message: /\["\*"\] alone/ },
    { mcp: { allowed_hosts: ['https://mcp.example.com'] }, path: 'mcp.allowed_hosts[0]', message: /host name/ },
    { mcp: { allowed_hosts: ['a.example.com', 'x/y'] }, path: 'mcp.allowed_hosts[1]', message: /host name/ },
    { mcp: { allowed_hosts: ['localhost:70000'] }, path: 'mcp.allowed_hosts[0]', message: /host name/ },
    { mcp: { allowed_hosts: 'localhost' }, path: 'mcp.allowed_hosts', message: /must be a list/ },
    {
      mcp: { allowed_origins: ['app.example.com'] },
      path: 'mcp.allowed_origins[0]',
      message: /must be an http\(s\) origin/,
    },
    { mcp: { allowed_origins: ['https://a.example.com/app'] }, path: 'mcp.allowed_origins[0]', message: /origin/ },
    { mcp: { allowed_origins: ['null'] }, path: 'mcp.allowed_origins[0]', message: /must be an http\(s\) origin/ },
    { mcp: { allowed_origins: ['*', 'https://a.example.com'] }, path: 'mcp.allowed_origins', message: /alone/ },
  ])('refuses $mcp at $path', ({ mcp, path, message }) => {
    const issue = issueOf(mcp).find((each) => each.path === path);
    expect(issue?.message).toMatch(message);
  });
});
