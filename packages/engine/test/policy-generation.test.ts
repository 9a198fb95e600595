import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../src/engine.js';
import type { PolicyDiff } from '../src/policy/candidate-judge.js';
import { decide, type EngineRequest } from '../src/request/decide.js';
import { RequestScope } from '../src/request/scope.js';

// access.tests and access.candidate on a real engine: the API key mode's own handler, a real key.
const KEY = 'policy-test-key-0123456789abcdef';
const env = { READER_API_KEY: KEY };
const CONFIG = (access: string) => `
auth:
  mode: api_key
  api_keys:
    keys: [{ name: reader, env_var: READER_API_KEY, roles: [reader] }]
access:
${access}
`;
const CASES = `
callers: { reader: { api_key: reader } }
cases:
  - { name: reader reads reports, as: reader, request: "GET /reports/7", expect: 200 }
`;

function capture() {
  const lines: string[] = [];
  const push = (message: string) => void lines.push(message);
  return { lines, logger: { info: push, warn: push, error: push } };
}

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'policy-engine-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

describe('access.tests', () => {
  it('refuses a reload whose tests fail, naming the case; the old generation keeps serving', async () => {
    const dir = await folder({
      'cases.yaml': CASES,
      'config.yaml': CONFIG('  tests: [cases.yaml]\n  "GET /reports/:id": { roles: [reader] }'),
    });
    const { logger, lines } = capture();
    const engine = await createEngine(await loadConfig(join(dir, 'config.yaml')), { env, logger });
    const serving = engine.current();
    await writeFile(
      join(dir, 'config.yaml'),
      CONFIG('  tests: [cases.yaml]\n  "GET /reports/:id": { roles: [admin] }'),
    );
    await expect(engine.reload()).rejects.toThrow(
      /access\.tests: a case failed: .*cases\.yaml: reader reads reports: expected 200, got 403 role_missing/,
    );
    expect(engine.current()).toBe(serving);
    expect(engine.reloadState()).toMatchObject({
      generation: 1,
      lastReloadError: expect.stringContaining('reader reads reports'),
    });
    expect(lines.some((line) => line.includes('reader reads reports'))).toBe(true);
    await engine.close();
  });

  it('refuses to start with a config whose tests fail', async () => {
    const dir = await folder({
      'cases.yaml': CASES,
      'config.yaml': CONFIG('  tests: [cases.yaml]\n  "GET /reports/:id": deny'),
    });
    await expect(
      createEngine(await loadConfig(join(dir, 'config.yaml')), { env, logger: capture().logger }),
    ).rejects.toThrow(/access\.tests: a case failed: .*reader reads reports: expected 200, got 403 route_denied/);
  });
});

describe('access.candidate', () => {
  it('counts every disagreement and logs one line a minute per combination, never answering', async () => {
    const dir = await folder({
      'candidate.yaml': '"GET /reports/:id": { roles: [admin] }\n',
      'config.yaml': CONFIG('  candidate: candidate.yaml\n  "GET /reports/:id": { roles: [reader] }'),
    });
    let clock = 1_000_000;
    const diffs: PolicyDiff[] = [];
    const { logger, lines } = capture();
    const engine = await createEngine(await loadConfig(join(dir, 'config.yaml')), {
      env,
      logger,
      now: () => clock,
      onPolicyDiff: (diff) => void diffs.push(diff),
    });
    const send = async () => {
      const request: EngineRequest = { method: 'GET', url: '/reports/7', headers: { 'x-api-key': KEY } };
      const scope = new RequestScope(() => null);
      const step = engine.current().access('GET', '/reports/7', request, scope);
      if (step.kind !== 'flow') throw new Error('expected a flow');
      return decide(step.flow, request, scope);
    };
    for (let i = 0; i < 500; i += 1) expect(await send()).toMatchObject({ pass: true });
    expect(diffs).toHaveLength(500);
    expect(diffs[0]).toEqual({ key: 'GET /reports/:id', live: 'allowed', candidate: 'role_missing' });
    const said = () => lines.filter((line) => line.startsWith('access.candidate'));
    expect(said()).toEqual(['access.candidate disagrees on GET /reports/:id: live allowed, candidate role_missing']);
    clock += 59_999;
    await send();
    expect(said()).toHaveLength(1);
    clock += 1;
    await send();
    expect(said()[1]).toBe(
      'access.candidate disagrees on GET /reports/:id: live allowed, candidate role_missing (500 more since the last line)',
    );
    await engine.close();
  });
});
