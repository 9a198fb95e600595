import { describe, expect, it } from '@jest/globals';
import { loadConfig, parseAuthConfig, parseYaml } from '@authlayer/core';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPolicyEvaluator } from '../src/policy/policy-evaluator.js';
import { PolicyTestFileError } from '../src/policy/policy-test-file.js';
import { runPolicyTests } from '../src/policy/run-policy-tests.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/policy/', import.meta.url));
const CONFIG = join(FIXTURES, 'config.yaml');
const CASES = join(FIXTURES, 'cases.yaml');
// auth_time 1000 is 200 s old, 100 is 1100 s old: max_age 300 tells them apart.
const now = () => 1_200_000;

type RawCase = { as: string; expect: number | { status: number; reason?: string }; [field: string]: unknown };

describe('the policy runner', () => {
  it('passes every case of a table of every rule field', async () => {
    const report = await runPolicyTests(await loadConfig(CONFIG), [CASES], { now });
    expect(report.failures.map((failure) => failure.message)).toEqual([]);
    expect(report.cases).toBeGreaterThan(20);
  });

  it('fails each planted wrong expectation with a line naming the file and the case', async () => {
    const raw = parseYaml(await readFile(CASES, 'utf8'), CASES) as { callers: unknown; cases: RawCase[] };
    const dir = await mkdtemp(join(tmpdir(), 'policy-'));
    const config = await loadConfig(CONFIG);
    for (const [index, each] of raw.cases.entries()) {
      const status = typeof each.expect === 'number' ? each.expect : each.expect.status;
      const planted = { ...each, name: `planted ${index}`, expect: status === 200 ? { status: 403 } : 200 };
      const file = join(dir, `planted-${index}.yaml`);
      await writeFile(file, JSON.stringify({ callers: raw.callers, cases: [planted] }));
      const report = await runPolicyTests(config, [file], { now });
      expect(report.failures).toHaveLength(1);
      expect(report.failures[0]!.message).toMatch(new RegExp(`^${file}: planted ${index}: expected \\d+, got \\d+`));
    }
  });

  it('lists the keys no case reached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'policy-'));
    const file = join(dir, 'one.yaml');
    await writeFile(file, 'callers: { r: { api_key: reader } }\ncases: [{ as: r, request: "GET /me", expect: 200 }]\n');
    const report = await runPolicyTests(await loadConfig(CONFIG), [file], { now });
    expect(report.unreached).toContain('GET /reports/:id');
    expect(report.unreached).toContain('MCP tools/call delete_file');
    expect(report.unreached).not.toContain('GET /me');
  });

  it.each([
    [
      'callers: { r: { api_key: nobody-here } }\ncases: [{ as: r, request: "GET /me", expect: 200 }]',
      /callers\.r: api_key names no key/,
    ],
    ['cases: [{ as: r, request: "GET /me", expect: 200 }]', /cases\[0\]\.as: names no caller/],
    [
      'callers: { r: anonymous }\ncases: [{ as: r, request: "get me", expect: 200 }]',
      /request must be "METHOD \/path"/,
    ],
    [
      'callers: { r: anonymous }\ncases: [{ as: r, request: "GET /me", expect: ok }]',
      /cases\[0\]\.expect must be a status/,
    ],
    [
      'callers: { r: anonymous }\ncases: [{ as: r, request: "GET /", expect: 200, typo: 1 }]',
      /cases\[0\]\.typo: unknown field/,
    ],
    ['callers: [', /not valid YAML/],
  ])('refuses an invalid test file, naming it and the field (%#)', async (text, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'policy-'));
    const file = join(dir, 'bad.yaml');
    await writeFile(file, text);
    const run = runPolicyTests(await loadConfig(CONFIG), [file], { now });
    await expect(run).rejects.toThrow(PolicyTestFileError);
    await expect(run).rejects.toThrow(message);
  });
});

describe('the policy evaluator', () => {
  const admin = { jwt: { sub: 'u-1', roles: ['admin'], acr: 'mfa', auth_time: 1000 } };

  it('traces every key that applied, with its verdict and the field that decided', async () => {
    const evaluator = await createPolicyEvaluator(await loadConfig(CONFIG), { now });
    const weak = { jwt: { sub: 'u-4', roles: ['admin'], acr: 'pwd', auth_time: 1000 } };
    const refused = await evaluator.evaluate(weak, { request: 'DELETE /reports/7' });
    expect(refused).toMatchObject({ status: 401, reason: 'step_up_required', key: 'DELETE /reports/:id' });
    expect(refused.challenge).toMatch(/^Bearer .*error="insufficient_user_authentication".*acr_values="mfa"/);
    expect(refused.trace).toEqual([
      { key: 'DELETE /reports/:id', verdict: 'refuse', field: 'acr', reason: 'step_up_required' },
    ]);
    const stale = await evaluator.evaluate({ jwt: { ...admin.jwt, auth_time: 100 } }, { request: 'DELETE /reports/7' });
    expect(stale.trace[0]).toMatchObject({ field: 'max_age' });
    const mcp = await evaluator.evaluate({ api_key: 'reader' }, { mcp: { method: 'tools/call', name: 'delete_file' } });
    expect(mcp).toMatchObject({ status: 403, reason: 'scope_missing', key: 'MCP tools/call delete_file' });
    expect(mcp.trace).toEqual([
      { key: 'POST /mcp', verdict: 'allow', field: 'authenticated', reason: null },
      { key: 'MCP tools/call delete_file', verdict: 'refuse', field: 'scopes', reason: 'scope_missing' },
    ]);
    const denied = await evaluator.evaluate(admin, { request: 'GET /nowhere' });
    expect(denied).toMatchObject({ status: 403, reason: 'route_denied', key: 'default' });
    expect(denied.trace).toEqual([{ key: 'default', verdict: 'refuse', field: 'default', reason: 'route_denied' }]);
    const tenant = await evaluator.evaluate({ api_key: 'acme-bot' }, { request: 'GET /tenants/globex/files' });
    expect(tenant.trace[0]).toMatchObject({ field: 'tenant_param', verdict: 'refuse' });
    const any = await evaluator.evaluate({ api_key: 'reader' }, { request: 'GET /exports' });
    expect(any.trace[0]).toMatchObject({ field: 'any', reason: 'role_missing' });
  });

  it('answers report_only as the engine does: the request goes on, the refusal is kept', async () => {
    const config = parseAuthConfig({
      auth: { mode: 'api_key', api_keys: { keys: [{ name: 'reader', env_var: 'R_API_KEY', roles: ['reader'] }] } },
      access: { report_only: true, 'GET /reports/:id': { roles: ['admin'] } },
    });
    const evaluator = await createPolicyEvaluator(config, { now });
    const verdict = await evaluator.evaluate({ api_key: 'reader' }, { request: 'GET /reports/7' });
    expect(verdict).toMatchObject({
      status: 200,
      reason: null,
      wouldRefuse: { reason: 'role_missing', key: 'GET /reports/:id' },
    });
  });
});
