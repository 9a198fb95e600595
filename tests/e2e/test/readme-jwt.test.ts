// The README's "JWT mode" commands, run as pasted from the repository root: openssl makes the key
// pair, `pnpm start` starts the service with the example config, node signs a token, curl calls.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../scripts/pack.mjs';
import { readmeBlock } from './support/readme.js';
import { baseEnv } from './support/start-server.js';

const run = promisify(execFile);
const MARKER = 'tests/e2e/test/readme-jwt.test.ts runs this block';
let work: string;
let child: ChildProcess;
let url: string;
let stderr = '';

beforeAll(async () => {
  // Our own TMPDIR: the key pair the README writes under it is this test's, whoever else runs.
  work = mkdtempSync(join(tmpdir(), 'authlayer-readme-jwt-'));
  const env = { ...baseEnv(), TMPDIR: work, PORT: '0' };
  child = spawn('bash', ['-euc', readmeBlock(MARKER, 'sh')], {
    cwd: REPO_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.setEncoding('utf8');
  url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on (http:\/\/[^ ]+)/.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the README command exited (${String(code)}):\n${stderr}`)));
  });
  // The README command builds first: minutes at load 16 on 2 cores. A safety net only.
}, 900_000);

afterAll(async () => {
  if (child?.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

describe("the README's JWT mode commands", () => {
  it('start the service in JWT mode, saying where the key comes from', () => {
    expect(stderr).toContain('auth.mode jwt, handler jwt, keys from environment variable JWT_PUBLIC_KEY');
    expect(stderr).not.toContain('PRIVATE KEY');
  });

  it('sign a token that the service accepts, with the identity the README shows', async () => {
    // The README's second block, as pasted, pointed at the port the service picked.
    const block = readmeBlock('In another terminal, sign a token', 'sh').replace('http://127.0.0.1:8080', url);
    const { stdout } = await run('bash', ['-euc', block], { cwd: REPO_ROOT, env: { ...baseEnv(), TMPDIR: work } });
    expect(JSON.parse(stdout)).toEqual({
      query: 'hello',
      auth: {
        method: 'jwt',
        userId: 'ada',
        email: null,
        name: null,
        roles: ['admin'],
        permissions: ['invoke', 'admin'],
        scopes: [],
        tenantId: null,
      },
    });
  });
});
