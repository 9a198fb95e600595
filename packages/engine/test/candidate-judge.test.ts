import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../src/engine.js';
import type { PolicyDiff } from '../src/policy/candidate-judge.js';
import { engineAt, judge, KEYS, requestTo } from './support/engine-at.js';

// access.candidate beside each kind of live step, on a real engine without HTTP: a route the live
// table lets through untouched or denies, one that needs a caller, and the candidate's own default.
// The candidate never answers: the live outcome stands, the disagreement is counted and logged.

const LIVE = {
  'GET /status': 'public',
  'GET /old': 'deny',
  'GET /reports/:id': { roles: ['auditor'] },
  'GET /me': 'optional',
};

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});

async function candidateFile(text: string, name = 'candidate.yaml'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'candidate-'));
  await writeFile(join(dir, name), text);
  return join(dir, name);
}

/** An engine with `LIVE` and the candidate `text`, and the diffs it tells. */
async function beside(text: string) {
  const diffs: PolicyDiff[] = [];
  const candidate = await candidateFile(text);
  const made = await engineAt({ access: { ...LIVE, candidate } }, { onPolicyDiff: (diff) => void diffs.push(diff) });
  open.push(made.engine);
  const send = async (method: string, url: string, headers: Record<string, string> = {}) =>
    (await judge(made.engine.current(), requestTo(method, url, headers))).step;
  const warned = () => made.logger.text.filter((line) => line.includes('access.candidate'));
  return { ...made, diffs, send, warned };
}

describe('access.candidate beside the live table', () => {
  it('a public route the candidate protects: the request goes on, the candidate would ask for credentials', async () => {
    const { diffs, send, warned } = await beside('"GET /status": { roles: [admin] }\n');
    expect(await send('GET', '/status')).toBe('public');
    expect(diffs).toEqual([{ key: 'GET /status', live: 'allowed', candidate: 'credentials_missing' }]);
    expect(warned()).toEqual([
      'warn: access.candidate disagrees on GET /status: live allowed, candidate credentials_missing',
    ]);
  });

  it('a denied route the candidate opens: still denied, the diff names the live rule', async () => {
    const { diffs, send } = await beside('"GET /old": public\n');
    expect(await send('GET', '/old')).toBe('denied');
    expect(diffs).toEqual([{ key: 'GET /old', live: 'route_denied', candidate: 'allowed' }]);
  });

  it('a route the candidate denies: the caller the live table lets in is told to the counter only', async () => {
    const { diffs, send } = await beside('"GET /reports/:id": deny\n');
    expect(await send('GET', '/reports/7', { 'x-api-key': KEYS.auditor })).toBe('flow');
    expect(diffs).toEqual([{ key: 'GET /reports/:id', live: 'allowed', candidate: 'route_denied' }]);
  });

  it('a caller without credentials on an optional route: judged as no caller by both, no diff when they agree', async () => {
    const { diffs, send } = await beside('"GET /me": optional\n"GET /reports/:id": { roles: [auditor] }\n');
    await send('GET', '/me');
    await send('GET', '/reports/7', { 'x-api-key': KEYS.auditor });
    await send('GET', '/reports/7', { 'x-api-key': KEYS.plain });
    expect(diffs).toEqual([]);
  });

  it('an optional route the candidate protects: the anonymous caller would be refused', async () => {
    const { diffs, send } = await beside('"GET /me": { roles: [auditor] }\n');
    await send('GET', '/me');
    expect(diffs).toEqual([{ key: 'GET /me', live: 'allowed', candidate: 'credentials_missing' }]);
  });

  it('a refusal the candidate would lift: the live reason and rule, the candidate allowed', async () => {
    const { diffs, send } = await beside('"GET /reports/:id": { permissions: [invoke] }\n');
    await send('GET', '/reports/7', { 'x-api-key': KEYS.admin });
    expect(diffs).toEqual([{ key: 'GET /reports/:id', live: 'role_missing', candidate: 'allowed' }]);
  });

  it('a caller the candidate would refuse: its reason, at its rule', async () => {
    const { diffs, send } = await beside('"GET /reports/:id": { roles: [admin] }\n');
    await send('GET', '/reports/7', { 'x-api-key': KEYS.auditor });
    expect(diffs).toEqual([{ key: 'GET /reports/:id', live: 'allowed', candidate: 'role_missing' }]);
  });

  it('a public route the candidate has no rule for: its default (authenticated) would ask for a caller', async () => {
    const { diffs, send } = await beside('"GET /reports/:id": { roles: [auditor] }\n');
    expect(await send('GET', '/status')).toBe('public');
    expect(diffs).toEqual([{ key: 'default', live: 'allowed', candidate: 'credentials_missing' }]);
  });

  it("the candidate's own default: an unmatched route it denies", async () => {
    const { diffs, send } = await beside('default: deny\n');
    await send('GET', '/elsewhere', { 'x-api-key': KEYS.plain });
    expect(diffs).toEqual([{ key: 'default', live: 'allowed', candidate: 'route_denied' }]);
  });
});

describe('access.candidate that cannot be used', () => {
  it('a file that is not there: refused at start, at access.candidate, naming the path and the code', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'candidate-'));
    const missing = join(dir, 'nowhere.yaml');
    await expect(engineAt({ access: { ...LIVE, candidate: missing } })).rejects.toThrow(
      `access.candidate: cannot read ${missing} (ENOENT)`,
    );
  });

  it('a folder: refused the same way', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'candidate-'));
    await mkdir(join(dir, 'folder.yaml'));
    await expect(engineAt({ access: { ...LIVE, candidate: join(dir, 'folder.yaml') } })).rejects.toThrow(
      /access\.candidate: cannot read .*folder\.yaml \(EISDIR\)/,
    );
  });

  it('a rule with a field no table knows: refused at its key within access.candidate', async () => {
    const candidate = await candidateFile('"GET /reports/:id": { roles: [auditor], when: 7 }\n');
    await expect(engineAt({ access: { ...LIVE, candidate } })).rejects.toThrow(
      'access.candidate.GET /reports/:id: Unrecognized key: "when"',
    );
  });

  it('a list, not a table: refused at access.candidate', async () => {
    const candidate = await candidateFile('- GET /status\n');
    await expect(engineAt({ access: { ...LIVE, candidate } })).rejects.toThrow(
      /access\.candidate: must be a mapping of access keys/,
    );
  });

  it('a file that is not YAML: refused at access.candidate (not the config), naming the file and the line', async () => {
    const candidate = await candidateFile('"GET /status": public\n  bad: [\n');
    await expect(engineAt({ access: { ...LIVE, candidate } })).rejects.toThrow(
      /^access\.candidate: .*candidate\.yaml, line \d+: not valid YAML/,
    );
  });
});
