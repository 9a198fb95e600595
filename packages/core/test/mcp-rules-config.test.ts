import { describe, expect, it } from '@jest/globals';
import { isConfigError } from '../src/config/config-error.js';
import { compileMcpName } from '../src/config/mcp-name.js';
import { mcpRuleIssues, paramsSchema, scopeVariables } from '../src/config/mcp-rule.js';
import { parseAccessTable } from '../src/config/parse-access-table.js';
import { describeForbidden } from '../src/forbidden-error.js';

// Core's own proof of the MCP key names, the `params` field, a table given apart from a config
// (`access.candidate`); the engine's tests prove what the decisions make of them. (A mode's section
// checked for a config made for another mode is modeSectionOf's, in section-schema.test.ts.)

/** The issues a ConfigError names, as `path: message`. */
function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (isConfigError(error)) return error.issues.map(({ path, message }) => `${path}: ${message}`);
    throw error;
  }
  throw new Error('no ConfigError');
}

describe('compileMcpName', () => {
  it('matches an exact name, a prefix, and a template with its variables', () => {
    const exact = compileMcpName('get_forecast');
    expect([exact.kind, exact.match('get_forecast'), exact.match('get_forecasts')]).toEqual(['exact', {}, null]);
    const prefix = compileMcpName('admin_*');
    expect([prefix.kind, prefix.match('admin_drop'), prefix.match('user_drop')]).toEqual(['prefix', {}, null]);
    expect(compileMcpName('*').match('*')).toEqual({});
    const template = compileMcpName('files://{tenant}/{+path}');
    expect(template.variables).toEqual(['tenant', 'path']);
    expect({ ...template.match('files://acme/a/b.txt') }).toEqual({ tenant: 'acme', path: 'a/b.txt' });
    expect(template.match('files://acme')).toBeNull();
    expect(compileMcpName('notes://{id}').match('notes://a/b')).toBeNull();
  });

  it('matches a template value as sent, never percent-decoded, and escapes its literal text', () => {
    expect({ ...compileMcpName('a.b/{x}').match('a.b/%2F') }).toEqual({ x: '%2F' });
    expect(compileMcpName('a.b/{x}').match('aXb/y')).toBeNull();
  });

  it.each([
    ['files://{tenant', 'a template variable is {name} or {+name} (letters, digits, _)'],
    ['files://{ten-ant}/x', 'a template variable is {name} or {+name} (letters, digits, _)'],
    ['files://{a}}/x', 'a template variable is {name} or {+name} (letters, digits, _)'],
    ['files://{a}{b}', 'two template variables must be apart'],
    ['files://{a}/{a}', 'the template names a twice'],
    ['files://{+a}/{+b}', 'a template may have one {+variable} at most'],
  ])('refuses %s', (name, message) => {
    expect(() => compileMcpName(name)).toThrow(message);
  });
});

describe('an MCP rule: params and the variables of its scopes', () => {
  it('accepts a rule naming only variables of its key', () => {
    const rule = { scopes: ['files:{tenant}:read'], params: { '{tenant}': { claim: 'tenant_id' } } };
    expect(mcpRuleIssues('files://{tenant}/{path}', rule)).toEqual([]);
    expect(mcpRuleIssues(null, { scopes: ['files:read'] })).toEqual([]);
  });

  it('names each variable its key does not have', () => {
    const rule = { scopes: ['files:{org}:read'], params: { '{tenant}': ['acme'], 'arguments.mode': ['read'] } };
    expect(mcpRuleIssues('*', rule)).toEqual([
      { path: ['params', '{tenant}'], message: 'tenant is not a variable of the key (the key has none)' },
      { path: ['scopes', 0], message: 'org is not a variable of the key (the key has none)' },
    ]);
    expect(mcpRuleIssues('files://{id}', { scopes: ['x:{org}'] })).toEqual([
      { path: ['scopes', 0], message: 'org is not a variable of the key (the key has id)' },
    ]);
  });

  it('names a broken template as the rule of its key', () => {
    expect(mcpRuleIssues('files://{a}{b}', { scopes: [] })).toEqual([
      { path: [], message: 'two template variables must be apart' },
    ]);
  });

  it('lists the variables a scope names', () => {
    expect(scopeVariables('files:{tenant}:{mode}')).toEqual(['tenant', 'mode']);
    expect(scopeVariables('files:read')).toEqual([]);
  });

  it.each([
    [{}, false],
    [{ 'arguments.mode': ['read', 1, true, null] }, true],
    [{ '{tenant}': { claim: 'org.id' } }, true],
    [{ 'arguments.__proto__.x': ['a'] }, false],
    [{ 'arguments..mode': ['a'] }, false],
    [{ 'arguments.mode': [] }, false],
    [{ 'arguments.mode': { claim: 'a b' } }, false],
    [{ 'arguments.mode': { claim: 'a', other: 1 } }, false],
  ])('params %j is accepted: %s', (params, accepted) => {
    expect(paramsSchema.safeParse(params).success).toBe(accepted);
  });

  it('says which parameter has no accepted value, never the value', () => {
    expect(describeForbidden('param_mismatch', ['arguments.mode'])).toBe(
      'the parameter arguments.mode does not have an accepted value',
    );
    expect(describeForbidden('param_mismatch', [])).toBe('the parameter  does not have an accepted value');
    expect(describeForbidden('claim_mismatch', [])).toBe('the claim  does not have an accepted value');
  });
});

describe('parseAccessTable (a table given apart from the config)', () => {
  it('parses a table as the access section would', () => {
    const { access, accessPolicy } = parseAccessTable(
      { default: 'deny', 'GET /reports/:id': { roles: ['analyst'] } },
      ['api_key'],
      'access.candidate',
    );
    expect(access['GET /reports/:id']).toMatchObject({ roles: ['analyst'] });
    expect(accessPolicy.default).toBe('deny');
  });

  it('names every issue below where it was given', () => {
    expect(issuesOf(() => parseAccessTable(['GET /a'], ['api_key'], 'access.candidate'))).toEqual([
      'access.candidate: must be a mapping of access keys, as the access section',
    ]);
    expect(issuesOf(() => parseAccessTable({ report_only: 'yes' }, ['api_key'], 'access.candidate'))).toHaveLength(1);
    expect(issuesOf(() => parseAccessTable({ 'get /a': 'public' }, ['api_key'], 'access.candidate'))[0]).toMatch(
      /^access\.candidate\.get \/a: /,
    );
    expect(
      issuesOf(() => parseAccessTable({ tests: ['t.yaml'], candidate: 'c.yaml' }, ['api_key'], 'access.candidate')),
    ).toEqual([
      'access.candidate.tests: is a field of the config, not of a table',
      'access.candidate.candidate: is a field of the config, not of a table',
    ]);
  });
});
