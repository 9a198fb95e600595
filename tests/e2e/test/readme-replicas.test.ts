// docs/operations.md's "Two replicas sharing one Redis" block, run as pasted, on free ports: it used to
// print `8081 000` (curls before the servers listened), leave processes behind, and let Redis
// listen on every interface.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from '@authlayer/testkit';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../scripts/pack.mjs';
import { docsBlock } from './support/readme.js';
import { baseEnv } from './support/start-server.js';

const work = mkdtempSync(join(tmpdir(), 'authlayer-readme-replicas-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });

describe('README: two replicas sharing one Redis', () => {
  it('prints one limit across both, binds Redis to loopback, and leaves nothing running', async () => {
    const [redis, a, b] = [await freePort(), await freePort(), await freePort()];
    const block = docsBlock('docs/operations.md', 'Two replicas sharing one Redis', 'sh')
      .replaceAll('6380', String(redis))
      .replaceAll('8081', String(a))
      .replaceAll('8082', String(b))
      .replaceAll('apps/service/dist/main.js', join(REPO_ROOT, 'apps', 'service', 'dist', 'main.js'));
    expect(block).toContain('--bind 127.0.0.1');
    // stdin not a socket: bash would read the system bashrc as if started by a remote shell.
    const result = spawnSync('bash', ['-euc', block], {
      cwd: work,
      env: baseEnv(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: '' });
    expect(result.stdout.trim().split('\n')).toEqual([`${a} 200`, `${b} 200`, `${a} 200`, `${b} 429`]);
    for (const port of [redis, a, b]) expect(await refused(port)).toBe(true);
    expect(existsSync(join(work, 'limits.yaml'))).toBe(false);
  });
});
