import type { ClientLimits, MaybePromise } from '@authlayer/core';
import { isPromiseLike } from '@authlayer/core/internal';
import { policyMember, type LimitState } from './headers.js';
import { after, type Limiter, type Taken } from './limiter.js';
import { periodOf } from './period.js';
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
): (identity: string, client: ClientLimits | undefined) => MaybePromise<RequestVerdict> {
  // By kind, then points: no key string is made per request.
  const limiters = new Map<string, Map<number, Limiter>>();
  const limiterOf = (points: number, kind: string, duration: number) => {
    let ofKind = limiters.get(kind);
    if (ofKind === undefined) limiters.set(kind, (ofKind = new Map()));
    let made = ofKind.get(points);
    if (made === undefined) {
      made = make(points, `authlayer:${kind}:${points}`, duration);
      ofKind.set(points, made);
    }
    return made;
  };
  // The minute limits' policy members, made once per limit.
  const minutePolicies = new Map<number, string>();
  const minutePolicy = (points: number) => {
    let policy = minutePolicies.get(points);
    if (policy === undefined) minutePolicies.set(points, (policy = policyMember('minute', points, MINUTE)));
    return policy;
  };
  return (identity, client) => {
    const perMinute = client?.requestsPerMinute ?? common;
    const quota = client?.quota ?? null;
    if (perMinute === null && quota === null) return NO_LIMIT;
    const states: LimitState[] = [];
    const counted = (): MaybePromise<RequestVerdict> => {
      if (quota === null) return { wait: null, states };
      const period = periodOf(now(), quota.per);
      const left = Math.max(1, Math.ceil((period.end - now()) / 1000));
      const limiter = limiterOf(quota.requests, `quota_${quota.per}`, left);
      // The key names the period: a new day or month is a new key, whatever the store still holds.
      return after(consume(limiter, `${identity}:${period.id}`, { customDuration: left }, storeFailed), (result) => {
        if (result === null) return { wait: null, states };
        const state = { name: quota.per, limit: quota.requests, windowSeconds: period.seconds };
        states.push({ ...state, remaining: result.remaining, resetSeconds: left });
        return { wait: result.over ? period.end - now() : null, states };
      });
    };
    if (perMinute === null) return counted();
    return after(consume(limiterOf(perMinute, 'requests', MINUTE), identity, {}, storeFailed), (result) => {
      if (result === null) return counted();
      states.push(stateOf('minute', perMinute, MINUTE, result, minutePolicy(perMinute)));
      // Over the minute limit: no quota is used up.
      return result.over ? { wait: Math.max(result.msBeforeNext, 0), states } : counted();
    });
  };
}

/** One point of `key`, or `null` when the store failed (the request goes on; `storeFailed` is told). */
function consume(
  limiter: Limiter,
  key: string,
  options: { customDuration?: number },
  storeFailed: () => void,
): MaybePromise<Taken | null> {
  const failed = () => {
    storeFailed();
    return null;
  };
  try {
    const taken = limiter.consume(key, options);
    return isPromiseLike(taken) ? taken.then(undefined, failed) : taken;
  } catch {
    return failed();
  }
}

function stateOf(name: string, limit: number, windowSeconds: number, result: Taken, policy?: string): LimitState {
  return {
    name,
    limit,
    windowSeconds,
    policy,
    remaining: result.remaining,
    resetSeconds: Math.max(1, Math.ceil(Math.max(result.msBeforeNext, 0) / 1000)),
  };
}
