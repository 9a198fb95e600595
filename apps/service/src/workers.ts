import type { Logger } from '@authlayer/core';
import cluster from 'node:cluster';
import { createWorkerSupervisor } from './worker-supervisor.js';

/**
 * `WORKERS=N` (N > 1): the primary process forks N workers that share one port (node:cluster),
 * says once where they listen, passes SIGTERM/SIGINT on to them and exits 0 when they all have,
 * and passes SIGHUP (reload) on to every worker.
 * What happens when a worker dies is decided by `createWorkerSupervisor`.
 */
export function runPrimary(workers: number, logger: Logger, listening: (port: number) => void): void {
  const supervisor = createWorkerSupervisor(workers, {
    logger,
    fork: () => void cluster.fork(),
    stopAll: () => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    },
    exit: (code) => process.exit(code),
    listening,
    later: (ms, run) => {
      const timer = setTimeout(run, ms);
      return () => clearTimeout(timer);
    },
  });
  cluster.on('listening', (worker, address) => supervisor.listening(worker.id, address.port));
  cluster.on('exit', (worker, code, signal) =>
    supervisor.exited(worker.id, worker.process.pid, signal ?? `exit code ${String(code)}`),
  );
  // Every worker reloads on its own: each holds its own config and handlers.
  process.on('SIGHUP', () => {
    const workers = Object.values(cluster.workers ?? {});
    logger.info(`SIGHUP: reloading the config in ${workers.length} workers`);
    for (const worker of workers) worker?.process.kill('SIGHUP');
  });
  process.on('SIGTERM', (signal) => supervisor.stop(signal));
  process.on('SIGINT', (signal) => supervisor.stop(signal));
  supervisor.start();
}
