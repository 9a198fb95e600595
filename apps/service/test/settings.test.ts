import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { readSettings, USAGE } from '../src/settings.js';
import { runToExit } from './cli.js';

const DEFAULT_CONFIG = fileURLToPath(new URL('../service.yaml', import.meta.url));

describe('readSettings: where the config is', () => {
  it.each([
    [
      '--config relative to INIT_CWD (the folder pnpm start ran in)',
      ['--config', 'my.yaml'],
      { INIT_CWD: '/home/ada/project' },
      '/home/ada/project/my.yaml',
    ],
    [
      'SERVICE_CONFIG relative to INIT_CWD',
      [],
      { SERVICE_CONFIG: 'conf/a.yaml', INIT_CWD: '/home/ada' },
      '/home/ada/conf/a.yaml',
    ],
    ['--config relative to the current folder without INIT_CWD', ['--config', 'my.yaml'], {}, '/srv/cwd/my.yaml'],
    [
      'an absolute --config as it is',
      ['--config', '/etc/authlayer.yaml'],
      { INIT_CWD: '/home/ada' },
      '/etc/authlayer.yaml',
    ],
    ['the service.yaml of the service by default', [], { INIT_CWD: '/home/ada' }, DEFAULT_CONFIG],
  ])('%s', (_name, argv, env, expected) => {
    expect(readSettings(argv, env, '/srv/cwd').configPath).toBe(expected);
  });
});

describe('readSettings: --pid-file', () => {
  it('is absent by default, relative to INIT_CWD like --config, absolute as it is', () => {
    expect(readSettings([], {}, '/srv/cwd').pidFile).toBeNull();
    expect(readSettings(['--pid-file', 'run/a.pid'], { INIT_CWD: '/home/ada' }, '/srv/cwd').pidFile).toBe(
      '/home/ada/run/a.pid',
    );
    expect(readSettings(['--pid-file', '/run/authlayer.pid'], {}, '/srv/cwd').pidFile).toBe('/run/authlayer.pid');
  });
});

describe('--help', () => {
  it('prints usage, the environment variables and examples on stdout, and exits 0', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await runToExit([flag]);
      expect([result.code, result.stdout, result.stderr]).toEqual([0, USAGE, '']);
    }
    for (const word of [
      '--config PATH',
      '--check',
      'SERVICE_CONFIG',
      'PORT',
      'HOST',
      'SERVICE_API_KEY',
      'Examples:',
      'openssl',
    ]) {
      expect(USAGE).toContain(word);
    }
  });

  it("names the repository's pinned pnpm (npx -y pnpm@<packageManager>), never a bare pnpm a fresh machine lacks", () => {
    const root = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      packageManager: string;
    };
    const pinned = `npx -y ${root.packageManager}`;
    expect(USAGE).toContain(`Usage: ${pinned} start`);
    expect(USAGE.split('\n').filter((line) => /(^|[\s(])pnpm /.test(line))).toEqual([]);
    expect(USAGE).toContain(`${pinned} --silent start --check`);
  });

  it('names the absolute path it tried when the config is missing', async () => {
    const result = await runToExit(['--config', 'missing/authlayer.yaml'], { INIT_CWD: '/nonexistent-authlayer' });
    expect(result.stderr).toBe(
      'authlayer: config error: config: cannot read /nonexistent-authlayer/missing/authlayer.yaml (ENOENT)\n',
    );
  });
});
