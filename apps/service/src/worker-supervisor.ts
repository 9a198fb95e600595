import type { Logger } from '@authlayer/core';

/** What the supervisor does to the world (node:cluster in `runPrimary`; a recorder in tests). */
export interface SupervisorIo {
  readonly logger: Logger;
  fork(): void;
  /** SIGTERM to every live worker. */
  stopAll(): void;
  exit(code: number): void;
  /** Every worker listens: say where, once. */
  listening(port: number): void;
  /** Runs `run` after `ms`; the returned function cancels it. */
  later(ms: number, run: () => void): () => void;
}

/** The events of the workers, told by `runPrimary`. */
export interface WorkerSupervisor {
  start(): void;
  listening(id: number, port: number): void;
  exited(id: number, pid: number | undefined, how: string): void;
  stop(signal: NodeJS.Signals): void;
}

/** The longest wait before another replacement, after replacements that died before listening. */
export const MAX_REPLACEMENT_DELAY_MS = 30_000;

/**
 * The decisions of `WORKERS=N`. At start-up, a worker that exits before it listens stops the
 * service (exit code 1): the config or the port is wrong, and every worker would fail alike.
 * Once the service is up, a worker that dies is replaced at once; a replacement that dies before
 * it listens (an OOM kill, a full disk) is replaced again after 1 s, 2 s, 4 s ... up to 30 s,
 * while the other workers keep serving. Each of these says why in one `error` line.
 */
export function createWorkerSupervisor(workers: number, io: SupervisorIo): WorkerSupervisor {
  let stopping = false;
  let failed = false;
  let serving = false;
  let live = 0;
  let ready = 0;
  let quickDeaths = 0;
  const started = new Set<number>();
  const pending = new Set<() => void>();

  const exitIfDone = () => {
    if (live === 0) io.exit(failed ? 1 : 0);
  };
  const fork = (delayMs = 0) => {
    live++;
    if (delayMs === 0) return io.fork();
    const cancel = io.later(delayMs, () => {
      pending.delete(cancel);
      io.fork();
    });
    pending.add(cancel);
  };
  const stopAll = () => {
    stopping = true;
    for (const cancel of pending) cancel();
    live -= pending.size;
    pending.clear();
    io.stopAll();
    exitIfDone();
  };

  return {
    start: () => {
      for (let i = 0; i < workers; i++) fork();
    },
    listening(id, port) {
      started.add(id);
      quickDeaths = 0;
      if (!serving && ++ready === workers) {
        serving = true;
        io.listening(port);
      }
    },
    exited(id, pid, how) {
      live--;
      const name = `worker ${pid ?? '?'}`;
      if (stopping) return exitIfDone();
      if (started.has(id)) {
        io.logger.error(`${name} died (${how}); starting another`);
        return fork();
      }
      if (!serving) {
        io.logger.error(`${name} exited before it listened (${how}); stopping the service`);
        failed = true;
        return stopAll();
      }
      const delay = Math.min(1000 * 2 ** quickDeaths++, MAX_REPLACEMENT_DELAY_MS);
      io.logger.error(`${name}, a replacement, died before it listened (${how}); starting another in ${delay} ms`);
      fork(delay);
    },
    stop(signal) {
      if (stopping) return;
      io.logger.info(`${signal}: stopping ${workers} workers`);
      stopAll();
    },
  };
}
