import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { createWorkerSupervisor } from '../src/worker-supervisor.js';

/** A supervisor of two workers over a recorder: what it did, in order, and its pending timers. */
function supervised() {
  const logger = createCaptureLogger();
  const actions: string[] = [];
  const timers: { ms: number; run: () => void; cancelled: boolean }[] = [];
  const supervisor = createWorkerSupervisor(2, {
    logger,
    fork: () => actions.push('fork'),
    stopAll: () => actions.push('stopAll'),
    exit: (code) => actions.push(`exit ${code}`),
    listening: (port) => actions.push(`listening ${port}`),
    later: (ms, run) => {
      const timer = { ms, run, cancelled: false };
      timers.push(timer);
      return () => (timer.cancelled = true);
    },
  });
  supervisor.start();
  return { supervisor, actions, timers, logger };
}

describe('WORKERS: what the primary does when a worker dies', () => {
  it('(the 2026-11-24 probe) a replacement killed before it listens is replaced again; the healthy worker keeps serving', () => {
    const { supervisor, actions, timers, logger } = supervised();
    supervisor.listening(1, 8080);
    supervisor.listening(2, 8080);
    supervisor.exited(1, 101, 'SIGKILL'); // a serving worker: replaced at once
    supervisor.exited(3, 103, 'SIGKILL'); // its replacement, before it listened
    expect(actions).toEqual(['fork', 'fork', 'listening 8080', 'fork']);
    expect(timers.map((t) => t.ms)).toEqual([1000]);
    expect(logger.text).toEqual([
      'error: worker 101 died (SIGKILL); starting another',
      'error: worker 103, a replacement, died before it listened (SIGKILL); starting another in 1000 ms',
    ]);
    timers[0]!.run();
    expect(actions.at(-1)).toBe('fork');
    supervisor.exited(4, 104, 'exit code 1');
    supervisor.exited(5, 105, 'exit code 1');
    expect(timers.map((t) => t.ms)).toEqual([1000, 2000, 4000]);
    supervisor.listening(6, 8080); // one listens: the next death starts from 1 s again
    supervisor.exited(6, 106, 'SIGKILL');
    supervisor.exited(7, 107, 'SIGKILL');
    expect(timers.at(-1)!.ms).toBe(1000);
    expect(actions).not.toContain('stopAll');
  });

  it('waits at most 30 s between replacements', () => {
    const { supervisor, timers } = supervised();
    supervisor.listening(1, 8080);
    supervisor.listening(2, 8080);
    for (let id = 10; id < 20; id++) supervisor.exited(id, id, 'SIGKILL');
    expect(timers.map((t) => t.ms)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000]);
  });

  it('at start-up, a worker that exits before it listens stops the service with exit code 1, saying why', () => {
    const { supervisor, actions, logger } = supervised();
    supervisor.listening(1, 8080);
    supervisor.exited(2, 102, 'exit code 1');
    supervisor.exited(1, 101, 'SIGTERM');
    expect(actions).toEqual(['fork', 'fork', 'stopAll', 'exit 1']);
    expect(logger.text).toEqual(['error: worker 102 exited before it listened (exit code 1); stopping the service']);
  });

  it('SIGTERM: stops every worker, cancels a pending replacement, and exits 0 when the last has stopped', () => {
    const { supervisor, actions, timers, logger } = supervised();
    supervisor.listening(1, 8080);
    supervisor.listening(2, 8080);
    supervisor.exited(1, 101, 'SIGKILL');
    supervisor.exited(3, 103, 'SIGKILL');
    supervisor.stop('SIGTERM');
    supervisor.stop('SIGTERM');
    expect(timers[0]!.cancelled).toBe(true);
    supervisor.exited(2, 102, 'exit code 0');
    expect(actions.slice(-2)).toEqual(['stopAll', 'exit 0']);
    expect(logger.text.at(-1)).toBe('info: SIGTERM: stopping 2 workers');
  });
});
