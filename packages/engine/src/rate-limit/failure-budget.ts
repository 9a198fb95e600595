import type { MaybePromise } from '@authlayer/core';
import { isPromiseLike } from '@authlayer/core/internal';
import { after, type Limiter, type Taken } from './limiter.js';
import type { FailureReservation } from './verdicts.js';

export type { FailureReservation } from './verdicts.js';

/** `failed_auth_per_minute` per client address, reserved before verifying. */
export interface FailureBudget {
  /**
   * A reservation, or the milliseconds to wait when the address is over its limit: in the same turn
   * with the memory store (unless the request must wait for others of its address to settle).
   */
  reserve(address: string): MaybePromise<FailureReservation | number>;
}

/** The addresses with reservations in flight in this process, and the requests waiting on them. */
interface InFlight {
  pending: number;
  readonly waiters: (() => void)[];
}

/** What a request holds when nothing was reserved for it (no limit, or the store failed). */
export const NOTHING_RESERVED: FailureReservation = Object.freeze({ keep() {}, release() {} });

/**
 * Reserves a failure before each verification (the limiter's `consume`), and gives it back with
 * `reward` unless the credentials were refused. So N requests that arrive together (pipelined
 * on one connection, or on N connections, or through several replicas on Redis) can have at most
 * `points` verifications in flight and refused per window, whatever the store's latency.
 *
 * A request that finds the budget used up while this process still has reservations of the same
 * address in flight waits for one of them to settle and tries again, instead of a 429: concurrent
 * valid requests from one address (a NAT, a proxy) are delayed, never refused. A 429 comes only
 * when nothing of that address is in flight here. An over-budget attempt's point is given back at
 * once, so the store counts kept failures and live reservations only.
 *
 * A store that errs lets the request through without a reservation (`storeFailed` is told).
 */
export function createFailureBudget(limiter: Limiter, now: () => number, storeFailed: () => void): FailureBudget {
  const inFlight = new Map<string, InFlight>();

  const settled = (address: string, slot: InFlight) => {
    slot.pending--;
    // The last one out wakes everyone (each tries again or gets its 429); else one may use the point.
    if (slot.pending > 0) return slot.waiters.shift()?.();
    inFlight.delete(address);
    for (const wake of slot.waiters.splice(0)) wake();
  };

  const reserved = (address: string, windowEnds: number): FailureReservation => {
    let slot = inFlight.get(address);
    if (slot === undefined) inFlight.set(address, (slot = { pending: 0, waiters: [] }));
    slot.pending++;
    const own = slot;
    let done = false;
    return {
      keep() {
        if (done) return;
        done = true;
        settled(address, own);
      },
      release() {
        if (done) return;
        done = true;
        // A window that has ended took the point with it: giving it back would lend one to the next.
        if (now() >= windowEnds) return settled(address, own);
        return after(rewardOf(address), () => settled(address, own));
      },
    };
  };

  /** Gives a point back; a store that fails is told and forgotten. */
  const rewardOf = (address: string): MaybePromise<void> => {
    try {
      const given = limiter.reward(address);
      return isPromiseLike(given) ? given.then(undefined, storeFailed) : given;
    } catch {
      return storeFailed();
    }
  };

  const reserve = (address: string): MaybePromise<FailureReservation | number> => {
    const started = now();
    let taken: MaybePromise<Taken>;
    try {
      taken = limiter.consume(address);
    } catch {
      storeFailed();
      return NOTHING_RESERVED;
    }
    const judge = (res: Taken): MaybePromise<FailureReservation | number> => {
      if (!res.over) return reserved(address, started + res.msBeforeNext);
      const slot = inFlight.get(address);
      return after(rewardOf(address), () => {
        if (slot === undefined) return Math.max(res.msBeforeNext, 0);
        // Everything in flight settled while the point was given back: try again at once.
        if (slot.pending === 0) return reserve(address);
        return new Promise<void>((resolve) => slot.waiters.push(resolve)).then(() => reserve(address));
      });
    };
    if (!isPromiseLike(taken)) return judge(taken);
    return taken.then(judge, () => {
      storeFailed();
      return NOTHING_RESERVED;
    });
  };

  return { reserve };
}
