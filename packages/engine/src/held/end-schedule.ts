/** The timer functions a schedule uses (Node's by default; a test gives its own). */
export interface Timers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const NODE_TIMERS: Timers = {
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/** Ends are due in whole seconds: one bucket, and at most one timer turn, per second. */
const SECOND = 1000;
/** The longest a timer is set for (setTimeout's own bound is about 24.8 days). */
const LONGEST_WAIT = 2 ** 31 - 1;

/**
 * When things are due, with one timer for all of them: entries are kept in buckets of one second
 * (the first second that starts at or after their time), and the one timer waits for the earliest
 * bucket. A bucket is run at its second or up to its timer's delay later, never before any of its
 * entries is due: what is due at `t` runs in `[t, t + 1 s)` when the event loop is free.
 *
 * Buckets are few (one per distinct second), so finding the earliest is a walk over them, made
 * only when the earliest one ran or an earlier one came.
 */
export class EndSchedule<T> {
  private readonly buckets = new Map<number, Set<T>>();
  private readonly due = new Map<T, number>();
  private armed: { readonly at: number; readonly timer: unknown } | null = null;

  constructor(
    private readonly now: () => number,
    private readonly run: (entry: T) => void,
    private readonly timers: Timers = NODE_TIMERS,
  ) {}

  /** How many entries wait. */
  get size(): number {
    return this.due.size;
  }

  /** `entry` is due at `at` (milliseconds, by `now`); added again, it moves. */
  add(entry: T, at: number): void {
    this.delete(entry);
    const bucket = Math.ceil(at / SECOND) * SECOND;
    let entries = this.buckets.get(bucket);
    if (entries === undefined) this.buckets.set(bucket, (entries = new Set()));
    entries.add(entry);
    this.due.set(entry, bucket);
    if (this.armed === null || bucket < this.armed.at) this.arm();
  }

  /** Forgets `entry`: it will not run. */
  delete(entry: T): void {
    const bucket = this.due.get(entry);
    if (bucket === undefined) return;
    this.due.delete(entry);
    const entries = this.buckets.get(bucket)!;
    entries.delete(entry);
    if (entries.size === 0) this.buckets.delete(bucket);
    // The timer of an emptied bucket stays: it finds nothing due and arms for the next one.
  }

  /** Forgets every entry and stops the timer. */
  clear(): void {
    this.buckets.clear();
    this.due.clear();
    this.disarm();
  }

  private arm(): void {
    this.disarm();
    let earliest = Infinity;
    for (const bucket of this.buckets.keys()) if (bucket < earliest) earliest = bucket;
    if (earliest === Infinity) return;
    const wait = Math.min(Math.max(earliest - this.now(), 0), LONGEST_WAIT);
    this.armed = { at: earliest, timer: this.timers.setTimeout(() => this.fire(), wait) };
  }

  private disarm(): void {
    if (this.armed !== null) this.timers.clearTimeout(this.armed.timer);
    this.armed = null;
  }

  /** Runs every bucket whose second has come (by `now`: a clock behind the timer runs nothing yet). */
  private fire(): void {
    this.armed = null;
    const now = this.now();
    for (const [bucket, entries] of [...this.buckets]) {
      if (bucket > now) continue;
      this.buckets.delete(bucket);
      for (const entry of entries) {
        this.due.delete(entry);
        this.run(entry);
      }
    }
    this.arm();
  }
}
