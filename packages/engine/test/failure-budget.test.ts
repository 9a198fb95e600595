import { describe, expect, it } from '@jest/globals';
import { createFailureBudget, NOTHING_RESERVED, type FailureReservation } from '../src/rate-limit/failure-budget.js';
import type { Limiter } from '../src/rate-limit/limiter.js';
import { createMemoryLimiter } from '../src/rate-limit/memory-limiter.js';

// `failed_auth_per_minute` by a pinned clock on the memory store: requests of one address in
// flight together are delayed, never refused, while a guess over the budget waits its window; a
// store that fails lets requests through and says so.

const T = 1_800_000_000_000;

function budgetOf(points: number, wrap: (limiter: Limiter) => Limiter = (limiter) => limiter) {
  const clock = { now: T };
  const failures: number[] = [];
  const limiter = wrap(createMemoryLimiter(points, 60, () => clock.now));
  const budget = createFailureBudget(
    limiter,
    () => clock.now,
    () => failures.push(clock.now),
  );
  return { budget, clock, failures };
}
const isReservation = (value: unknown): value is FailureReservation =>
  typeof value === 'object' && value !== null && 'keep' in value;

describe('createFailureBudget', () => {
  it('over the budget with nothing in flight: the wait until the window ends', () => {
    const { budget, clock } = budgetOf(1);
    (budget.reserve('a') as FailureReservation).keep();
    clock.now = T + 15_000;
    expect(budget.reserve('a')).toBe(45_000);
    // Another address has its own budget.
    expect(isReservation(budget.reserve('b'))).toBe(true);
  });

  it('over the budget with the same address in flight: waits for it, then is served once a point is free', async () => {
    const { budget } = budgetOf(2);
    const first = budget.reserve('a') as FailureReservation;
    const second = budget.reserve('a') as FailureReservation;
    const third = budget.reserve('a');
    expect(third).toBeInstanceOf(Promise);
    // A kept failure keeps its point: the third tries again and waits on the second.
    first.keep();
    first.keep();
    // An accepted request gives its point back: now the third gets one.
    void second.release();
    const served = await third;
    expect(isReservation(served)).toBe(true);
    (served as FailureReservation).keep();
    expect(budget.reserve('a')).toEqual(expect.any(Number));
  });

  it('everything in flight refused meanwhile: the waiter gets its 429 wait, not a reservation', async () => {
    const { budget } = budgetOf(1);
    const first = budget.reserve('a') as FailureReservation;
    const waiting = budget.reserve('a');
    first.keep();
    expect(await waiting).toBe(60_000);
  });

  it('a reservation released after its window ended gives nothing back to the next window', async () => {
    const { budget, clock } = budgetOf(1);
    const old = budget.reserve('a') as FailureReservation;
    clock.now = T + 60_000;
    const fresh = budget.reserve('a') as FailureReservation;
    void old.release();
    const next = budget.reserve('a');
    expect(next).toBeInstanceOf(Promise);
    fresh.keep();
    expect(await next).toBe(60_000);
  });

  it('a reservation settles once: released after it was kept, its point stays taken', () => {
    const { budget } = budgetOf(1);
    const refused = budget.reserve('a') as FailureReservation;
    refused.keep();
    // A second settling (an adapter reporting twice) must not give the kept failure's point back.
    void refused.release();
    expect(budget.reserve('a')).toBe(60_000);
  });

  it('a store that throws or rejects: the request goes on with nothing reserved, the failure told', async () => {
    const throwing: Limiter = {
      consume: () => {
        throw new Error('down');
      },
      reward: () => undefined,
    };
    const failing = budgetOf(1, () => throwing);
    expect(failing.budget.reserve('a')).toBe(NOTHING_RESERVED);
    const rejecting = budgetOf(1, () => ({
      consume: () => Promise.reject(new Error('down')),
      reward: () => undefined,
    }));
    expect(await rejecting.budget.reserve('a')).toBe(NOTHING_RESERVED);
    expect([failing.failures.length, rejecting.failures.length]).toEqual([1, 1]);
    NOTHING_RESERVED.keep();
    void NOTHING_RESERVED.release();
  });

  it('a reward the store cannot take is told, synchronous or not; the reservation still settles', async () => {
    for (const reward of [
      () => {
        throw new Error('down');
      },
      () => Promise.reject(new Error('down')),
    ]) {
      const { budget, failures } = budgetOf(1, (limiter) => ({
        consume: (key) => Promise.resolve(limiter.consume(key)),
        reward,
      }));
      const held = (await budget.reserve('a')) as FailureReservation;
      const waiting = budget.reserve('a');
      void held.release();
      // The point was not given back: the waiter, woken, finds the budget used and nothing in flight.
      expect(await waiting).toBe(60_000);
      expect(failures.length).toBeGreaterThanOrEqual(1);
    }
  });
});
