import { describe, expect, it } from '@jest/globals';
import { EndSchedule, type Timers } from '../src/held/end-schedule.js';

/** Timers a test runs by hand: at most one is set at a time, as the schedule promises. */
function manualTimers() {
  const set: { run: () => void; ms: number; cleared: boolean }[] = [];
  const timers: Timers = {
    setTimeout: (run, ms) => {
      const timer = { run, ms, cleared: false };
      set.push(timer);
      return timer;
    },
    clearTimeout: (timer) => void ((timer as (typeof set)[number]).cleared = true),
  };
  const pending = () => set.filter((timer) => !timer.cleared);
  return {
    timers,
    pending,
    /** Fires the one pending timer. */
    fire() {
      const [only, ...more] = pending();
      expect(more).toEqual([]);
      only!.cleared = true;
      only!.run();
    },
  };
}

describe('EndSchedule', () => {
  it('runs each entry in the first second at or after its time, never before, with one timer', () => {
    let now = 10_000;
    const ran: string[] = [];
    const manual = manualTimers();
    const schedule = new EndSchedule<string>(
      () => now,
      (entry) => ran.push(entry),
      manual.timers,
    );
    schedule.add('a', 12_000);
    schedule.add('b', 12_400);
    schedule.add('c', 11_001);
    expect(schedule.size).toBe(3);
    expect(manual.pending().map((timer) => timer.ms)).toEqual([2000]); // c's second: 12 000
    now = 11_999; // the timer came early (a clock behind it): nothing is due, it waits again
    manual.fire();
    expect(ran).toEqual([]);
    expect(manual.pending().map((timer) => timer.ms)).toEqual([1]);
    now = 12_000;
    manual.fire();
    expect(ran.sort()).toEqual(['a', 'c']);
    expect(manual.pending().map((timer) => timer.ms)).toEqual([1000]); // b: 13 000
    now = 13_000;
    manual.fire();
    expect(ran).toContain('b');
    expect(schedule.size).toBe(0);
    expect(manual.pending()).toEqual([]);
  });

  it('forgets a deleted entry, moves one added again, and clear stops the timer', () => {
    const now = 0;
    const ran: string[] = [];
    const manual = manualTimers();
    const schedule = new EndSchedule<string>(
      () => now,
      (entry) => ran.push(entry),
      manual.timers,
    );
    schedule.add('a', 5000);
    schedule.add('b', 5000);
    schedule.delete('a');
    schedule.delete('a');
    schedule.add('b', 2000); // earlier: the timer moves
    expect(manual.pending().map((timer) => timer.ms)).toEqual([2000]);
    schedule.add('c', 9000);
    schedule.clear();
    expect(manual.pending()).toEqual([]);
    expect(schedule.size).toBe(0);
    expect(ran).toEqual([]);
  });

  it('runs an entry already due on the next turn of its timer, and waits at most what setTimeout takes', () => {
    let now = 50_000;
    const ran: string[] = [];
    const manual = manualTimers();
    const schedule = new EndSchedule<string>(
      () => now,
      (entry) => ran.push(entry),
      manual.timers,
    );
    schedule.add('late', 1000);
    expect(manual.pending().map((timer) => timer.ms)).toEqual([0]);
    manual.fire();
    expect(ran).toEqual(['late']);
    schedule.add('far', now + 90 * 86_400_000);
    expect(manual.pending().map((timer) => timer.ms)).toEqual([2 ** 31 - 1]);
    now += 2 ** 31 - 1;
    manual.fire();
    expect(ran).toEqual(['late']);
    expect(schedule.size).toBe(1);
  });

  it('uses unref-ed Node timers by default', async () => {
    const ran: string[] = [];
    const schedule = new EndSchedule<string>(Date.now, (entry) => ran.push(entry));
    const done = new Promise<void>((resolve) => {
      const poll = new EndSchedule<string>(Date.now, () => resolve());
      poll.add('x', Date.now());
    });
    schedule.add('now', Date.now() - 1);
    await done;
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['now']);
  });
});
