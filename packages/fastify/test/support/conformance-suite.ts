import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The launcher of the suite's CLI (see the fixture for why not its bin directly). */
const CLI = fileURLToPath(new URL('../fixtures/conformance-cli.mjs', import.meta.url));

/**
 * How long one scenario may run before its process is killed and the run fails with what it
 * printed. A scenario takes a second or two; this only turns a hang into a clear failure.
 */
const SCENARIO_LIMIT_MS = 120_000;

/** One check of the suite's `checks.json`. */
export interface SuiteCheck {
  readonly id: string;
  readonly name: string;
  readonly status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  readonly errorMessage?: string;
}

/** What a scenario's run left: its checks, the CLI's exit code and what it printed. */
export interface ScenarioRun {
  readonly checks: readonly SuiteCheck[];
  readonly exitCode: number | null;
  readonly output: string;
}

async function findChecks(dir: string): Promise<SuiteCheck[]> {
  const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith('checks.json'));
  if (files.length !== 1) throw new Error(`expected one checks.json under ${dir}, found ${files.length}`);
  return JSON.parse(await readFile(join(dir, files[0]!), 'utf8')) as SuiteCheck[];
}

/**
 * Runs one server scenario of `@modelcontextprotocol/conformance` against `url` in a child
 * process and reads its `checks.json`. Rejects, with the CLI's output, when the process is
 * killed at the limit or leaves no result.
 */
export async function runScenario(url: string, scenario: string): Promise<ScenarioRun> {
  const dir = await mkdtemp(join(tmpdir(), 'authlayer-conformance-'));
  try {
    const child = spawn(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const limit = setTimeout(() => child.kill('SIGKILL'), SCENARIO_LIMIT_MS);
    const [exitCode, signal] = (await once(child, 'close')) as [number | null, string | null];
    clearTimeout(limit);
    if (signal !== null) throw new Error(`${scenario}: the suite was stopped (${signal}); it printed:\n${output}`);
    const checks = await findChecks(dir).catch((error: Error) => {
      throw new Error(`${scenario}: ${error.message}; the suite printed:\n${output}`);
    });
    return { checks, exitCode, output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A loopback front that adds a credential to every request and passes it on unchanged otherwise. */
export interface TokenFront {
  /** `http://127.0.0.1:<port>`: the URL the suite is given. */
  readonly origin: string;
  /** Where requests go from now on, and the `Authorization` value they get. */
  route(target: string, authorization: string): void;
  close(): Promise<void>;
}

/**
 * The suite's server scenarios send no credential (0.1.16 has no option for one): this front
 * plays an MCP client that holds a token. Method, path, `Host`, `Origin` and body pass as sent.
 */
export async function startTokenFront(): Promise<TokenFront> {
  let target = '';
  let authorization = '';
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    const headers = { ...req.headers, authorization };
    const upstream = request(url, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    route: (next, credential) => {
      target = next;
      authorization = credential;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
