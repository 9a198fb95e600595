import type { Logger } from '@authlayer/core';
import cluster from 'node:cluster';
import { createWorkerSupervisor } from './worker-supervisor.js';

/**
 * `WORKERS=N` (N > 1): the primary process forks N workers that share one port (node:cluster),
 * says once where they listen, passes SIGTERM/SIGINT on to them and exits 0 when they all have.
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
  process.on('SIGTERM', (signal) => supervisor.stop(signal));
  process.on('SIGINT', (signal) => supervisor.stop(signal));
  supervisor.start();
}
