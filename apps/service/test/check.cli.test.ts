import { describe, expect, it } from '@jest/globals';
import { runToExit, writeConfig } from './cli.js';

// `main.js --check` in JWT mode with providers: what it says comes from the handler's describe().
const SECRET = 'a-shared-secret-of-at-least-thirty-two-bytes!';
const CONFIG = `auth:
  mode: jwt
  jwt:
    audience: invoke-api
    token_type: at+jwt
    providers:
      - issuer: https://sso.example.com/realms/acme
        discovery: true
      - issuer: https://partner.example.com
        jwks_url: https://partner.example.com/jwks?access_token=hunter2
        trust_roles: false
      - issuer: https://internal.example.com
        public_key_env: INTERNAL_SECRET
        algorithms: [HS256]
`;

describe('main.js --check with providers', () => {
  it('lists each issuer with its key source and key state, fetches nothing, and prints no secret', async () => {
    const { code, stdout, stderr } = await runToExit(['--config', writeConfig(CONFIG), '--check'], {
      INTERNAL_SECRET: SECRET,
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(stdout) as Record<string, any>;
    expect(report.handler).toBe('jwt');
    expect(report.key_material).toEqual({ INTERNAL_SECRET: 'set' });
    expect(report.handler_details).toEqual({
      issuers: [
        {
          config: 'auth.jwt.providers[0]',
          issuer: 'https://sso.example.com/realms/acme',
          key_source: 'discovery',
          keys: 'not_fetched',
          trust_roles: true,
        },
        {
          config: 'auth.jwt.providers[1]',
          issuer: 'https://partner.example.com',
          key_source: 'jwks_url',
          keys: 'not_fetched',
          trust_roles: false,
        },
        {
          config: 'auth.jwt.providers[2]',
          issuer: 'https://internal.example.com',
          key_source: 'public_key_env',
          keys: 'static',
          trust_roles: true,
        },
      ],
    });
    expect(report.auth.jwt.providers[1].jwks_url).toBe('https://partner.example.com/jwks?access_token=redacted');
    expect(report.auth.jwt.providers[0]).toMatchObject({
      audience: 'invoke-api',
      token_type: 'at+jwt',
      stale_keys_seconds: 3600,
    });
    expect(stdout).not.toContain(SECRET);
    expect(stdout).not.toContain('hunter2');
  });

  it("names a provider's own field when its key is missing", async () => {
    const { code, stderr } = await runToExit(['--config', writeConfig(CONFIG), '--check']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'authlayer: config error: auth.jwt.providers[2].public_key_env: environment variable INTERNAL_SECRET is unset or empty\n',
    );
  });
});

// MCP keys with patterns and templates, `params` and `mcp.filter_lists`, as `--check` prints them
// (forward_auth: the table guards the proxied MCP server's routes, which the service has not).
const MCP_CONFIG = `auth:
  mode: api_key
  api_keys:
    keys: [{ name: reader, env_var: READER_API_KEY }]
forward_auth: { enabled: true }
mcp: { endpoint: /mcp, filter_lists: true }
access:
  "POST /mcp": authenticated
  "MCP tools/call admin_*": { roles: [admin] }
  "MCP tools/call edit_file": { params: { "arguments.mode": [read, list], "arguments.ownerId": { claim: sub } } }
  "MCP resources/read files://{tenant}/{+path}":
    scopes: ["files:{tenant}:read"]
    params: { "{tenant}": { claim: tenant_id } }
  "MCP tools/call *": deny
`;

describe('main.js --check with MCP keys', () => {
  it('prints patterns, templates, params (paths as written) and filter_lists', async () => {
    const { code, stdout, stderr } = await runToExit(['--config', writeConfig(MCP_CONFIG), '--check'], {
      READER_API_KEY: 'reader-key-0123456789abcdef',
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(stdout) as Record<string, any>;
    expect(report.mcp).toMatchObject({ endpoint: '/mcp', filter_lists: true });
    const rule = { permissions: [], roles: [], any: [], modes: null, tenant_param: null };
    expect(report.access).toMatchObject({
      'MCP tools/call admin_*': { ...rule, scopes: [], roles: ['admin'] },
      'MCP tools/call edit_file': {
        ...rule,
        scopes: [],
        params: { 'arguments.mode': ['read', 'list'], 'arguments.ownerId': { claim: 'sub' } },
      },
      'MCP resources/read files://{tenant}/{+path}': {
        ...rule,
        scopes: ['files:{tenant}:read'],
        params: { '{tenant}': { claim: 'tenant_id' } },
      },
      'MCP tools/call *': 'deny',
    });
    expect(stdout).not.toContain('reader-key-0123456789abcdef');
  });
});
