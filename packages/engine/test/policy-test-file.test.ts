import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@authlayer/core';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PolicyTestFileError } from '../src/policy/policy-test-file.js';
import { runPolicyTests } from '../src/policy/run-policy-tests.js';

// A policy test file as its author writes it, run by `runPolicyTests` against the fixture's
// config: each mistake is refused before any case runs, naming the file and the field; a case
// without a name is named by its caller and request in a failure line.

const CONFIG = fileURLToPath(new URL('./fixtures/policy/config.yaml', import.meta.url));
const now = () => 1_200_000;
const ANON = 'callers: { r: anonymous }\n';

async function fileWith(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'policy-file-'));
  const file = join(dir, 'cases.yaml');
  await writeFile(file, text);
  return file;
}

async function run(file: string) {
  return runPolicyTests(await loadConfig(CONFIG), [file], { now });
}

describe('a test file that cannot be run', () => {
  it.each([
    ['a list at the top', '- 1\n', 'must be a mapping with callers and cases'],
    [
      'a top-level field it does not know',
      `${ANON}cases: [{ as: r, request: "GET /me", expect: 200 }]\ncase: 1\n`,
      'case: unknown field (callers, cases)',
    ],
    [
      'callers as a list',
      'callers: [r]\ncases: [{ as: r, request: "GET /me", expect: 200 }]\n',
      'callers must map names to callers',
    ],
    ['no cases', ANON, 'cases must be a non-empty list'],
    ['an empty list of cases', `${ANON}cases: []\n`, 'cases must be a non-empty list'],
    ['a case that is a word', `${ANON}cases: [GET /me]\n`, 'cases[0] must be a mapping'],
    [
      'headers as a list',
      `${ANON}cases: [{ as: r, request: "GET /me", headers: [a], expect: 200 }]\n`,
      'cases[0].headers must map header names to strings',
    ],
    ['neither request nor mcp', `${ANON}cases: [{ as: r, expect: 200 }]\n`, 'cases[0]: give one of request and mcp'],
    [
      'both request and mcp',
      `${ANON}cases: [{ as: r, request: "POST /mcp", mcp: { method: tools/list }, expect: 200 }]\n`,
      'cases[0]: give one of request and mcp',
    ],
    [
      'a request that is not a string',
      `${ANON}cases: [{ as: r, request: 7, expect: 200 }]\n`,
      'cases[0].request must be "METHOD /path"',
    ],
    [
      'mcp as a word',
      `${ANON}cases: [{ as: r, mcp: tools/list, expect: 200 }]\n`,
      'cases[0].mcp must be { method, name, arguments }',
    ],
    [
      'a status out of range',
      `${ANON}cases: [{ as: r, request: "GET /me", expect: 700 }]\n`,
      'cases[0].expect must be a status, or { status, reason }',
    ],
    [
      'a reason that is a number',
      `${ANON}cases: [{ as: r, request: "GET /me", expect: { status: 401, reason: 7 } }]\n`,
      'cases[0].expect.reason must be a string',
    ],
    [
      'a field beside status and reason',
      `${ANON}cases: [{ as: r, request: "GET /me", expect: { status: 401, body: x } }]\n`,
      'cases[0].expect lists only status and reason',
    ],
  ])('%s: refused, naming the file and the field', async (_what, text, message) => {
    const file = await fileWith(text);
    const running = run(file);
    await expect(running).rejects.toThrow(PolicyTestFileError);
    await expect(running).rejects.toThrow(`${file}: ${message}`);
  });

  it('a file that is not there: refused with the code, not a stack', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'policy-file-'));
    await expect(run(join(dir, 'gone.yaml'))).rejects.toThrow(`${join(dir, 'gone.yaml')}: cannot read it (ENOENT)`);
  });

  it('a folder: refused with the code', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'policy-file-'));
    await mkdir(join(dir, 'cases.yaml'));
    await expect(run(join(dir, 'cases.yaml'))).rejects.toThrow(`${join(dir, 'cases.yaml')}: cannot read it (EISDIR)`);
  });

  it('an empty file: refused as empty', async () => {
    const file = await fileWith('');
    await expect(run(file)).rejects.toThrow(`${file} is empty`);
  });
});

describe('a case without a name', () => {
  it('is named by its number, caller and request in a failure line', async () => {
    const file = await fileWith(
      [
        'callers: { nobody: anonymous, reader: { api_key: reader } }',
        'cases:',
        '  - { as: nobody, request: "GET /me", headers: { accept: text/html }, expect: 200 }',
        '  - { as: reader, mcp: { method: tools/call, name: delete_file }, expect: 200 }',
        '  - { as: reader, mcp: { method: resources/read, uri: "file:///x" }, expect: 403 }',
        '  - { as: reader, mcp: { method: tools/list }, expect: { status: 401, reason: credentials_missing } }',
      ].join('\n'),
    );
    const report = await run(file);
    expect(report.failures.map((failure) => failure.case)).toEqual([
      '#1 nobody GET /me',
      '#2 reader MCP tools/call delete_file',
      '#3 reader MCP resources/read file:///x',
      '#4 reader MCP tools/list',
    ]);
    expect(report.failures[0]!.message).toBe(
      `${file}: #1 nobody GET /me: expected 200, got 401 credentials_missing (by GET /me)`,
    );
  });
});
