import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from './free-port.js';

/** A real `redis-server` on 127.0.0.1, with no persistence, that a test can kill and start again. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>/0` */
  readonly url: string;
  readonly port: number;
  /** Kills it at once (SIGKILL, as a crash would) and resolves when it has exited. */
  kill(): Promise<void>;
  /**
   * Starts it again on the same port, empty (or, with `appendOnly`, with every write it took);
   * resolves when it accepts connections.
   */
  restart(): Promise<void>;
  /**
   * Freezes it (SIGSTOP): connections stay open and commands get no answer, as a Redis stuck in a
   * long command or a swapping host. {@link resume} ends it.
   */
  pause(): void;
  /** Lets a paused server go on (SIGCONT); the commands sent meanwhile are answered then. */
  resume(): void;
  /** Stops it (SIGTERM) if it runs; for `afterAll`. */
  stop(): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface RedisServerOptions {
  /**
   * Keep every write in an append-only file (fsync on each), in a temporary folder, so that a
   * restart, even after a kill, comes back with the data, as a production Redis with AOF does.
   * Default `false`: no persistence, a restart is empty.
   */
  readonly appendOnly?: boolean;
}

async function launch(port: number, dir: string | null): Promise<ChildProcess> {
  const persistence =
    dir === null ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir];
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence];
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const reader = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    reader.on('line', (line) => {
      lines.push(line);
      if (line.includes('Ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${String(code)}): ${lines.join(' | ')}`)));
  });
  return child;
}

async function end(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (child === null || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/**
 * Starts Debian's `redis-server` on a free loopback port with `--save '' --appendonly no`, and
 * resolves once it says it accepts connections. `.ci/install-redis` installs it when missing.
 *
 * @example
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = options.appendOnly === true ? mkdtempSync(join(tmpdir(), 'authlayer-redis-')) : null;
  let child: ChildProcess | null = await launch(port, dir);
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    kill: async () => {
      await end(child, 'SIGKILL');
      child = null;
    },
    restart: async () => {
      await end(child, 'SIGKILL');
      child = await launch(port, dir);
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    stop: async () => {
      child?.kill('SIGCONT');
      await end(child, 'SIGTERM');
      child = null;
    },
  };
}
