import { describe, expect, it } from '@jest/globals';
import type { ClientLimits } from '@authlayer/core';
import type { Limiter } from '../src/rate-limit/limiter.js';
import { createMemoryLimiter } from '../src/rate-limit/memory-limiter.js';
import { createRequestLimits, type RequestVerdict } from '../src/rate-limit/request-limits.js';

// The limits of an authenticated identity, by a pinned clock on the memory store: the minute
// limit, a client's own, and its quota per UTC day or month, which starts again at the boundary.

const NOON = Date.UTC(2026, 10, 28, 12);
const MIDNIGHT = Date.UTC(2026, 10, 29);

function limitsOf(common: number | null, broken?: Limiter) {
  const clock = { now: NOON };
  const failures: number[] = [];
  const made: string[] = [];
  const consume = createRequestLimits(
    common,
    (points, prefix, duration) => {
      made.push(prefix);
      return broken ?? createMemoryLimiter(points, duration, () => clock.now);
    },
    () => clock.now,
    () => failures.push(clock.now),
  );
  return { consume, clock, failures, made };
}
const client = (quota: ClientLimits['quota'], requestsPerMinute: number | null = null): ClientLimits => ({
  requestsPerMinute,
  quota,
});

describe('createRequestLimits', () => {
  it('no limit at all: nothing counted, nothing to say', () => {
    const { consume, made } = limitsOf(null);
    expect(consume('ada', undefined)).toEqual({ wait: null, states: [] });
    expect(consume('ada', client(null))).toEqual({ wait: null, states: [] });
    expect(made).toEqual([]);
  });

  it('a daily quota: counted to midnight UTC, over it waits until then, a new day starts again', () => {
    const { consume, clock } = limitsOf(null);
    const daily = client({ requests: 2, per: 'day' });
    const state = { name: 'day', limit: 2, windowSeconds: 86_400, resetSeconds: 43_200 };
    expect(consume('ada', daily)).toEqual({ wait: null, states: [{ ...state, remaining: 1 }] });
    expect(consume('ada', daily)).toEqual({ wait: null, states: [{ ...state, remaining: 0 }] });
    expect((consume('ada', daily) as RequestVerdict).wait).toBe(MIDNIGHT - NOON);
    // Another identity has its own quota.
    expect((consume('bob', daily) as RequestVerdict).wait).toBeNull();
    clock.now = MIDNIGHT;
    expect(consume('ada', daily)).toEqual({
      wait: null,
      states: [{ ...state, remaining: 1, resetSeconds: 86_400 }],
    });
  });

  it('over the minute limit: the wait of the minute, and no quota used up', () => {
    const { consume, clock } = limitsOf(1);
    const monthly = client({ requests: 5, per: 'month' });
    const first = consume('ada', monthly) as RequestVerdict;
    expect(first.states.map((state) => [state.name, state.remaining])).toEqual([
      ['minute', 0],
      ['month', 4],
    ]);
    clock.now = NOON + 20_000;
    const over = consume('ada', monthly) as RequestVerdict;
    expect(over.wait).toBe(40_000);
    expect(over.states.map((state) => state.name)).toEqual(['minute']);
    clock.now = NOON + 60_000;
    const next = consume('ada', monthly) as RequestVerdict;
    expect(next.states.map((state) => [state.name, state.remaining])).toEqual([
      ['minute', 0],
      ['month', 3],
    ]);
  });

  it("a client's own minute limit in place of the common one; one limiter per limit", () => {
    const { consume, made } = limitsOf(100);
    expect((consume('ada', client(null, 1)) as RequestVerdict).states[0]).toMatchObject({ limit: 1, remaining: 0 });
    expect((consume('ada', client(null, 1)) as RequestVerdict).wait).toBe(60_000);
    expect((consume('bob', undefined) as RequestVerdict).states[0]).toMatchObject({ limit: 100, remaining: 99 });
    void consume('bob', undefined);
    expect(made).toEqual(['authlayer:requests:1', 'authlayer:requests:100']);
  });

  it('a store that throws or rejects: the request goes on with no state, the failure told', async () => {
    const throwing = limitsOf(10, {
      consume: () => {
        throw new Error('down');
      },
      reward: () => undefined,
    });
    expect(throwing.consume('ada', client({ requests: 5, per: 'day' }))).toEqual({ wait: null, states: [] });
    expect(throwing.failures).toHaveLength(2);
    const rejecting = limitsOf(10, { consume: () => Promise.reject(new Error('down')), reward: () => undefined });
    expect(await rejecting.consume('ada', undefined)).toEqual({ wait: null, states: [] });
    expect(rejecting.failures).toHaveLength(1);
  });
});
