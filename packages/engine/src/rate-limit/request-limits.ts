import type { ClientLimits } from '@authlayer/core';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { periodOf } from './period.js';
import type { LimitState } from './headers.js';
import type { Limiter } from './redis-limiter.js';
import type { RequestVerdict } from './verdicts.js';

export type { RequestVerdict } from './verdicts.js';

/** Makes a limiter of `points` per `durationSeconds` on the configured store, under `keyPrefix`. */
export type MakeLimiter = (points: number, keyPrefix: string, durationSeconds: number) => Limiter;

const MINUTE = 60;
const NO_LIMIT: RequestVerdict = Object.freeze({ wait: null, states: [] });

/**
 * The limits of an authenticated identity: `rate_limit.requests_per_minute`, or its client's own
 * `requests_per_minute` in its place, and its client's quota per UTC calendar day or month. A
 * quota counts under a key of its period (`2026-11-25`, `2026-11`), so it starts again exactly at
 * the boundary, on every replica sharing the store. A request over the minute limit does not use
 * up quota. A store that fails lets the request through (`storeFailed`).
 */
export function createRequestLimits(
  common: number | null,
  make: MakeLimiter,
  now: () => number,
  storeFailed: () => void,
): (identity: string, client: ClientLimits | undefined) => Promise<RequestVerdict> {
  const limiters = new Map<string, Limiter>();
  const limiterOf = (points: number, kind: string, duration: number) => {
    const prefix = `authlayer:${kind}:${points}`;
    let made = limiters.get(prefix);
    if (made === undefined) {
      made = make(points, prefix, duration);
      limiters.set(prefix, made);
    }
    return made;
  };
  return async (identity, client) => {
    const perMinute = client?.requestsPerMinute ?? common;
    const quota = client?.quota ?? null;
    if (perMinute === null && quota === null) return NO_LIMIT;
    const states: LimitState[] = [];
    if (perMinute !== null) {
      const result = await consume(limiterOf(perMinute, 'requests', MINUTE), identity, {}, storeFailed);
      if (result !== null) {
        states.push(stateOf('minute', perMinute, MINUTE, result));
        if (result.rejected) return { wait: result.msBeforeNext, states };
      }
    }
    if (quota !== null) {
      const period = periodOf(now(), quota.per);
      const left = Math.max(1, Math.ceil((period.end - now()) / 1000));
      const limiter = limiterOf(quota.requests, `quota_${quota.per}`, left);
      // The key names the period: a new day or month is a new key, whatever the store still holds.
      const result = await consume(limiter, `${identity}:${period.id}`, { customDuration: left }, storeFailed);
      if (result !== null) {
        const state = { name: quota.per, limit: quota.requests, windowSeconds: period.seconds };
        states.push({ ...state, remaining: result.remaining, resetSeconds: left });
        if (result.rejected) return { wait: period.end - now(), states };
      }
    }
    return { wait: null, states };
  };
}

interface Consumed {
  readonly rejected: boolean;
  readonly remaining: number;
  readonly msBeforeNext: number;
}

async function consume(
  limiter: Limiter,
  key: string,
  options: { customDuration?: number },
  storeFailed: () => void,
): Promise<Consumed | null> {
  try {
    const result = await limiter.consume(key, options);
    return { rejected: false, remaining: result.remainingPoints, msBeforeNext: Math.max(result.msBeforeNext, 0) };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { rejected: true, remaining: 0, msBeforeNext: Math.max(rejection.msBeforeNext, 0) };
    }
    storeFailed();
    return null;
  }
}

function stateOf(name: string, limit: number, windowSeconds: number, result: Consumed): LimitState {
  return {
    name,
    limit,
    windowSeconds,
    remaining: result.remaining,
    resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}
