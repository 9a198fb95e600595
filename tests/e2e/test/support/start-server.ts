import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** A server started as a child process, with what it wrote so far. */
export interface RunningServer {
  readonly url: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The process, to wait on its output. */
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export interface StartOptions {
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** Matches the line that announces the port; its first group is the port. */
  readonly listening: RegExp;
  /** Which stream carries that line. */
  readonly stream: 'stdout' | 'stderr';
}

/** The variables any child needs to run, and nothing else from this process (no secrets leak in). */
export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'SystemRoot']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Spawns `node ...args` and resolves once it announces its port (it listens on port 0), or
 * rejects with its stderr when it exits first. Waits on events, never on a timer.
 */
export function startServer(args: string[], options: StartOptions): Promise<RunningServer> {
  const child = spawn(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise<RunningServer>((resolve, reject) => {
    const watched = options.stream === 'stdout' ? child.stdout! : child.stderr!;
    const onData = () => {
      const match = options.listening.exec(options.stream === 'stdout' ? stdout : stderr);
      if (match === null) return;
      watched.off('data', onData);
      child.off('exit', onExit);
      resolve({
        url: `http://127.0.0.1:${match[1]}`,
        stdout: () => stdout,
        stderr: () => stderr,
        child,
        stop: () => stop(child),
      });
    };
    const onExit = (code: number | null) => reject(new Error(`server exited (${code}) before listening:\n${stderr}`));
    watched.on('data', onData);
    child.once('exit', onExit);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
