import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's nginx (the package `nginx` or `nginx-light`), which `.ci/install-nginx` installs. */
export const NGINX = '/usr/sbin/nginx';

/** A free loopback port, as the kernel hands out for port 0 (nginx needs the number in its config). */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

export interface RunningNginx {
  readonly prefix: string;
  stop(): Promise<void>;
}

/**
 * Starts nginx in the foreground with `http` as the body of its `http {}` block, in a folder of
 * its own (temp paths, pid), and resolves once its worker has started (its own log line, read
 * from stderr: an event, not a wait).
 */
export async function startNginx(http: (prefix: string) => string): Promise<RunningNginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'authlayer-nginx-'));
  // Worker processes run as nobody when nginx starts as root: they must reach the temp paths.
  chmodSync(prefix, 0o755);
  for (const dir of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) {
    mkdirSync(join(prefix, dir));
    chmodSync(join(prefix, dir), 0o777);
  }
  const conf = [
    'worker_processes 1;',
    `pid ${prefix}/nginx.pid;`,
    'error_log stderr notice;',
    'events { worker_connections 128; }',
    'http {',
    '  access_log off;',
    ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (dir) => `  ${dir === 'body' ? 'client_body' : dir}_temp_path ${prefix}/${dir};`,
    ),
    http(prefix),
    '}',
    '',
  ].join('\n');
  writeFileSync(join(prefix, 'nginx.conf'), conf);
  const child = spawn(NGINX, ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await started(child);
  return {
    prefix,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGQUIT');
        await once(child, 'exit');
      }
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

function started(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      log += chunk;
      if (log.includes('start worker process')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`nginx exited (${code}) before it started:\n${log}`)));
  });
}
