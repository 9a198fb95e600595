import { expect } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The built CLI, as `pnpm start` runs it. */
export const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

const folder = mkdtempSync(join(tmpdir(), 'authlayer-cli-'));
let count = 0;

/** Writes a config file into a temp folder and returns its path. */
export function writeConfig(text: string): string {
  const path = join(folder, `config-${++count}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** A clean environment: only what the test gives, plus PATH. */
const baseEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '', ...env });

/** Runs the CLI to its exit. */
export async function runToExit(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** Starts the CLI on port 0 and resolves once it says it listens, with its base URL. */
export async function startService(args: string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [MAIN, ...args], {
    env: baseEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiting = new Set<(line: string) => void>();
  const reader = createInterface({ input: child.stderr! });
  reader.on('line', (line) => {
    lines.push(line);
    for (const notify of waiting) notify(line);
  });
  /** Resolves with the first stderr line (already seen, or still to come) that matches. */
  const waitForLine = (match: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const seen = lines.find((line) => match.test(line));
      if (seen !== undefined) return resolve(seen);
      const notify = (line: string) => {
        if (!match.test(line)) return;
        waiting.delete(notify);
        resolve(line);
      };
      waiting.add(notify);
      child.once('exit', (code) =>
        reject(new Error(`the service exited (${String(code)}) before ${String(match)}: ${lines.join(' ')}`)),
      );
    });
  const first = await waitForLine(/listening on https?:\/\/|^authlayer: /);
  const match = /listening on (https?:\/\/[^ "]+)/.exec(first);
  if (match === null) throw new Error(`the service did not start: ${first}`);
  const exited = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    child.kill(signal);
    const [code] = await exited;
    return code;
  };
  return { url: match[1]!, lines, stop, waitForLine, exited, child };
}

/** The contract: exit code not 0, exactly one line on stderr, no stack trace. */
export function expectOneLineFailure(result: { code: number | null; stderr: string }, mentions: string) {
  expect(result.code).not.toBe(0);
  expect(result.code).not.toBeNull();
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^authlayer: /);
  expect(lines[0]).toContain(mentions);
  expect(result.stderr).not.toMatch(/^\s*at /m);
}
