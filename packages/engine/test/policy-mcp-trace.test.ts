import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createPolicyEvaluator } from '../src/policy/policy-evaluator.js';

// `authlayer explain --mcp` and `auth.explain(req)` trace an MCP message by the keys the gate
// judges it with: patterns and templates, the scopes a template forms, and `params` as the field
// that decided.

const config = parseAuthConfig({
  auth: {
    mode: 'jwt',
    jwt: {
      jwks_url: 'https://issuer.example/.well-known/jwks.json',
      issuer: 'https://issuer.example/',
      audience: 'api',
    },
  },
  mcp: { endpoint: '/mcp', filter_lists: true },
  access: {
    'POST /mcp': 'authenticated',
    'MCP tools/call admin_*': { roles: ['admin'] },
    'MCP tools/call edit_file': {
      params: { 'arguments.mode': ['read', 'list'], 'arguments.ownerId': { claim: 'sub' } },
    },
    'MCP resources/read files://{tenant}/{+path}': {
      scopes: ['files:{tenant}:read'],
      params: { '{tenant}': { claim: 'tenant_id' } },
    },
    'MCP tools/call *': 'deny',
  },
});
const ROUTE = { key: 'POST /mcp', verdict: 'allow', field: 'authenticated', reason: null };
const TEMPLATE = 'MCP resources/read files://{tenant}/{+path}';
const acme = (scope: string) => ({ jwt: { sub: 'u-1', tenant_id: 'acme', scope } });
const read = (uri: string) => ({ mcp: { method: 'resources/read', uri } }) as never;

describe('explain for MCP patterns, templates and params', () => {
  it('names params as the field that refused, and as a field that held', async () => {
    const evaluator = await createPolicyEvaluator(config);
    const write = { mcp: { method: 'tools/call', name: 'edit_file', arguments: { mode: 'write', ownerId: 'u-1' } } };
    const refused = await evaluator.evaluate({ jwt: { sub: 'u-1' } }, write);
    expect(refused).toMatchObject({ status: 403, reason: 'param_mismatch', key: 'MCP tools/call edit_file' });
    expect(refused.trace).toEqual([
      ROUTE,
      { key: 'MCP tools/call edit_file', verdict: 'refuse', field: 'params', reason: 'param_mismatch' },
    ]);
    const list = { mcp: { method: 'tools/call', name: 'edit_file', arguments: { mode: 'list', ownerId: 'u-1' } } };
    const allowed = await evaluator.evaluate({ jwt: { sub: 'u-1' } }, list);
    expect(allowed).toMatchObject({ status: 200, reason: null });
    expect(allowed.trace[1]).toEqual({
      key: 'MCP tools/call edit_file',
      verdict: 'allow',
      field: 'params',
      reason: null,
    });
  });

  it('traces a pattern key, and the scopes a template key forms with the URI', async () => {
    const evaluator = await createPolicyEvaluator(config);
    const admin = await evaluator.evaluate({ jwt: { sub: 'u-2', roles: ['admin'] } }, {
      mcp: { method: 'tools/call', name: 'admin_reset' },
    } as never);
    expect(admin.trace[1]).toEqual({ key: 'MCP tools/call admin_*', verdict: 'allow', field: 'roles', reason: null });
    const held = await evaluator.evaluate(acme('files:acme:read'), read('files://acme/a/b.txt'));
    expect(held).toMatchObject({ status: 200 });
    expect(held.trace[1]).toEqual({ key: TEMPLATE, verdict: 'allow', field: 'scopes,params', reason: null });
    const other = await evaluator.evaluate(acme('files:acme:read'), read('files://globex/a.txt'));
    expect(other).toMatchObject({ status: 403, reason: 'param_mismatch' });
    expect(other.trace[1]).toEqual({ key: TEMPLATE, verdict: 'refuse', field: 'params', reason: 'param_mismatch' });
    const unscoped = await evaluator.evaluate(acme('files:globex:read'), read('files://acme/a.txt'));
    expect(unscoped).toMatchObject({ status: 403, reason: 'scope_missing' });
    expect(unscoped.challenge).toContain('scope="files:acme:read"');
    expect(unscoped.trace[1]).toEqual({ key: TEMPLATE, verdict: 'refuse', field: 'scopes', reason: 'scope_missing' });
  });

  it('says a URI that cannot form the scope was refused for it', async () => {
    const evaluator = await createPolicyEvaluator(config);
    const verdict = await evaluator.evaluate(acme('files:acme:read'), read('files://a"b/x'));
    expect(verdict).toMatchObject({ status: 400 });
    expect(verdict.trace[1]).toEqual({ key: TEMPLATE, verdict: 'refuse', field: 'scopes', reason: 'invalid_request' });
  });
});
