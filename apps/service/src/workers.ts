import type { Logger } from '@authlayer/core';
import cluster, { type Worker } from 'node:cluster';

/**
 * `WORKERS=N` (N > 1): the primary process forks N workers that share one port (node:cluster),
 * says once where they listen, passes SIGTERM/SIGINT on to them and exits 0 when they all have.
 * A worker that dies while the service is not stopping is replaced; one that fails before it
 * listens stops the whole service with exit code 1 (its own stderr line says why).
 */
export function runPrimary(workers: number, logger: Logger, listening: (port: number) => void): void {
  let stopping = false;
  let failed = false;
  let live = 0;
  let ready = 0;
  const started = new WeakSet<Worker>();
  const fork = () => {
    live++;
    cluster.fork();
  };
  const stopAll = () => {
    stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
  };
  cluster.on('listening', (worker, address) => {
    started.add(worker);
    if (++ready === workers) listening(address.port);
  });
  cluster.on('exit', (worker, code, signal) => {
    live--;
    if (!stopping && !started.has(worker)) {
      failed = true;
      stopAll();
    } else if (!stopping) {
      logger.error(
        `worker ${worker.process.pid ?? '?'} died (${signal ?? `exit code ${String(code)}`}); starting another`,
      );
      fork();
    }
    if (live === 0) process.exit(failed ? 1 : 0);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    logger.info(`${signal}: stopping ${workers} workers`);
    stopAll();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  for (let i = 0; i < workers; i++) fork();
}
