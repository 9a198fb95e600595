// docs/operations.md's "a leaked key, without Kubernetes" block, run as pasted against a service
// started as it says: it used to write `key: <key>` into the key file (so the new key got 401) and
// to signal whichever process `pgrep -f` found first.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../scripts/pack.mjs';
import { docsBlock } from './support/readme.js';
import { baseEnv, startServer, type RunningServer } from './support/start-server.js';

const MAIN = join(REPO_ROOT, 'apps', 'service', 'dist', 'main.js');
const LEAKED = 'leaked-key-0123456789abcdef';

const work = mkdtempSync(join(tmpdir(), 'authlayer-leaked-key-'));
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(work, { recursive: true, force: true });
});

const invoke = (server: RunningServer, key: string) =>
  fetch(`${server.url}/invoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: '{"query":"hello"}',
  }).then((res) => res.status);

/** Resolves once the service's stderr holds `count` lines matching `pattern`. */
function linesOf(server: RunningServer, pattern: RegExp, count: number) {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (
        server
          .stderr()
          .split('\n')
          .filter((line) => pattern.test(line)).length < count
      )
        return false;
      resolve();
      return true;
    };
    if (!check()) server.child.stderr!.on('data', check);
  });
}

describe('docs/operations.md: a leaked key, without Kubernetes', () => {
  it('puts the bare new key in the key file and reloads exactly this service, on every worker', async () => {
    const secrets = join(work, 'secrets');
    mkdirSync(secrets);
    writeFileSync(join(secrets, 'ci.key'), `${LEAKED}\n`);
    const config = join(work, 'service.yaml');
    writeFileSync(
      config,
      `auth:\n  mode: api_key\n  api_keys:\n    keys:\n      - { name: ci, key_file: ${join(secrets, 'ci.key')} }\n`,
    );
    const pidFile = join(work, 'authlayer.pid');

    // Another process on the host whose command line names the service's script, started first:
    // the one `pgrep -f ... | head -1` picked. SIGHUP would end it.
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', MAIN], { stdio: 'ignore' });
    cleanups.push(() => other.kill('SIGKILL'));

    const server = await startServer([MAIN, '--config', config, '--pid-file', pidFile], {
      cwd: work,
      env: { ...baseEnv(), PORT: '0', WORKERS: '2' },
      listening: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      stream: 'stderr',
    });
    cleanups.push(() => server.stop());
    expect(await invoke(server, LEAKED)).toBe(200);

    const block = docsBlock('docs/operations.md', 'a leaked key, without Kubernetes', 'sh');
    // The walk-through tells how the service was started: as above.
    expect(block).toContain('--pid-file /run/authlayer.pid');
    const script = block
      .replaceAll('/run/secrets', secrets)
      .replaceAll('/run/authlayer.pid', pidFile)
      .replaceAll('http://127.0.0.1:8080', server.url)
      .replaceAll('apps/service/dist/main.js', MAIN);
    // stdin not a socket: bash would read the system bashrc as if started by a remote shell.
    const result = spawnSync('bash', ['-euc', script], {
      cwd: work,
      env: baseEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(result.stdout).toMatch(/"config":\{"generation":[12],/);

    const key = readFileSync(join(secrets, 'ci.key'), 'utf8').trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Each of the two workers says it reloaded.
    await linesOf(server, /config reloaded: generation 2 serves/, 2);
    for (let i = 0; i < 4; i += 1) expect(await invoke(server, LEAKED)).toBe(401);
    for (let i = 0; i < 4; i += 1) expect(await invoke(server, key)).toBe(200);
    expect({ exitCode: other.exitCode, signalCode: other.signalCode }).toEqual({ exitCode: null, signalCode: null });

    // The pid file is this service's primary, and goes with it.
    expect(readFileSync(pidFile, 'utf8').trim()).toMatch(/^\d+$/);
    await server.stop();
    expect(existsSync(pidFile)).toBe(false);
  });
});
