// The README's test command runs turbo over every package: one package's failing suite must not
// cut another's short (it did: a timeout in this package stopped @authlayer/service's tests
// part-way), and the command must still fail. Run here on a throw-away workspace of two packages.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from '../scripts/pack.mjs';
import { baseEnv } from './support/start-server.js';

const work = mkdtempSync(join(tmpdir(), 'authlayer-test-command-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const write = (path: string, text: string) => {
  mkdirSync(join(work, path, '..'), { recursive: true });
  writeFileSync(join(work, path), text);
};
const pkg = (name: string, test: string) => JSON.stringify({ name, version: '0.0.0', scripts: { test } });

describe('the root test command', () => {
  it('runs every package to its end when one fails, and exits non-zero', () => {
    const script = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: { test: string } })
      .scripts.test;
    const turbo = script.split('&&').at(-1)!.trim();
    expect(turbo).toMatch(/^turbo run test\b/);

    write('package.json', JSON.stringify({ name: 'w', private: true, packageManager: 'pnpm@10.34.9' }));
    write('pnpm-workspace.yaml', 'packages:\n  - failing\n  - slow\n');
    write('pnpm-lock.yaml', "lockfileVersion: '9.0'\n");
    write('turbo.json', JSON.stringify({ tasks: { test: {} } }));
    write('failing/package.json', pkg('failing', 'touch failed && exit 1'));
    // Still running when the other fails, whatever the load: it waits for that failure first.
    write('slow/package.json', pkg('slow', 'until [ -e ../failing/failed ]; do sleep 0.1; done; sleep 3; touch done'));
    // turbo runs each task through the workspace's package manager, found on PATH.
    write('bin/pnpm', '#!/bin/sh\nexec npx -y pnpm@10.34.9 "$@"\n');
    chmodSync(join(work, 'bin', 'pnpm'), 0o755);
    spawnSync('git', ['init', '-q', '.'], { cwd: work });

    const env = baseEnv();
    const result = spawnSync('bash', ['-c', turbo], {
      cwd: work,
      env: {
        ...env,
        PATH: [join(work, 'bin'), join(REPO_ROOT, 'node_modules', '.bin'), env.PATH].join(delimiter),
        TURBO_TELEMETRY_DISABLED: '1',
        DO_NOT_TRACK: '1',
      },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(existsSync(join(work, 'failing', 'failed'))).toBe(true);
    expect({ slowFinished: existsSync(join(work, 'slow', 'done')), status: result.status }).toEqual({
      slowFinished: true,
      status: 1,
    });
  });
});
