// The README's start command, `pnpm start` at the root: it builds, then runs the service. The
// contract: a start-up failure is one line of authlayer's own on stderr and a non-zero exit,
// with nothing of the build before it; a build that fails still shows why.
import { describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pnpmCommand, REPO_ROOT } from '../scripts/pack.mjs';
import { baseEnv } from './support/start-server.js';

const BUILD = join(REPO_ROOT, 'scripts', 'build-quietly.mjs');

/** pnpm with `args`, to its exit (the timeout only bounds a hung process). */
function pnpm(args: string[]) {
  const [command, prefix] = pnpmCommand();
  const result = spawnSync(command, [...prefix, ...args], {
    cwd: REPO_ROOT,
    env: { ...baseEnv(), NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 600_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** stderr's lines without blank ones and pnpm's own lifecycle lines (they are pnpm's, not the service's). */
const ownLines = (stderr: string) => stderr.split('\n').filter((line) => !/^\s*$|ELIFECYCLE|ERR_PNPM_/.test(line));

// The build is turbo's (cached after the first run): the timeout only bounds a hung process.
describe('the root `pnpm start`', () => {
  it('fails to start with exactly one line on stderr, authlayer’s own, and no build output', () => {
    const result = pnpm(['start', '--config', join(REPO_ROOT, 'no-such-config.yaml')]);
    expect(result.code).not.toBe(0);
    expect(ownLines(result.stderr)).toEqual([
      expect.stringMatching(/^authlayer: config error: config: cannot read .*no-such-config\.yaml/),
    ]);
  }, 660_000);
});

// Through `pnpm exec`, as `pnpm start` runs it: turbo finds pnpm through the variables pnpm sets.
describe('scripts/build-quietly.mjs (the build before the start)', () => {
  const build = (filter: string) => pnpm(['--silent', 'exec', 'node', BUILD, filter]);

  it('prints nothing when the build works', () => {
    const result = build('@authlayer/core');
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
  }, 660_000);

  it('prints what the build said on stderr and exits non-zero when the build fails', () => {
    const result = build('@authlayer/no-such-package');
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("No package found with name '@authlayer/no-such-package'");
  }, 660_000);
});
