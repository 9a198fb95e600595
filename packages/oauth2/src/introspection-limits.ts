import type { AuthFailure } from '@authlayer/core';

/** Bounds of the load this API puts on the provider (not in the config file); see the README. */
export interface IntrospectionLimitsOptions {
  /** Most introspection requests in flight at once; more wait their turn. Default 32. */
  readonly maxConcurrent?: number;
  /** How long a request waits for its turn before 401 `key_unavailable`. Default: `timeout_ms`. */
  readonly maxWaitMs?: number;
  /**
   * How long a refused token (inactive, expired, another issuer or audience) is refused from
   * memory, by its digest. Default 10 seconds, never more than `cache_seconds` (0 turns it off).
   */
  readonly refusalCacheSeconds?: number;
  /** After a discovery document could not be used, how long it is not fetched again. Default 30 seconds. */
  readonly discoveryCooldownSeconds?: number;
}

/** The defaults of {@link IntrospectionLimitsOptions}. */
export const INTROSPECTION_LIMITS = Object.freeze({
  maxConcurrent: 32,
  refusalCacheSeconds: 10,
  discoveryCooldownSeconds: 30,
});

/**
 * The refusals that stay true for a token whatever the time: an inactive token does not come
 * back to life, an expired one stays expired, its issuer and audience do not change. Not
 * `token_not_yet_valid` (it becomes valid), never a provider failure.
 */
export const LASTING_REFUSALS: ReadonlySet<AuthFailure> = new Set<AuthFailure>([
  'credentials_invalid',
  'token_expired',
  'issuer_mismatch',
  'audience_mismatch',
]);

/** Thrown to a task that waited for its turn longer than the gate allows. */
export class GateTimeout extends Error {
  override readonly name = 'GateTimeout';
  constructor() {
    super('too many introspection requests in flight');
  }
}

/** Runs tasks with at most `max` of them in flight; the others wait in order. */
export interface ConcurrencyGate {
  /** Runs `task` in its turn; rejects with {@link GateTimeout} when its turn did not come within the wait. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks in flight now. */
  readonly active: number;
}

/**
 * A counting semaphore: at most `max` tasks in flight; a task whose turn does not come within
 * `waitMs` is not run and rejects with {@link GateTimeout}, so a flood waits at most that long
 * (a task's own time is bounded by `timeout_ms` already).
 *
 * @throws TypeError when `max` is not a positive integer.
 */
export function createConcurrencyGate(max: number, waitMs: number): ConcurrencyGate {
  if (!Number.isSafeInteger(max) || max < 1) throw new TypeError('maxConcurrent must be a positive integer');
  let active = 0;
  const waiting: (() => void)[] = [];
  const done = () => {
    active--;
    waiting.shift()?.();
  };
  const turn = () =>
    new Promise<void>((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        active++;
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(go), 1);
        reject(new GateTimeout());
      }, waitMs);
      timer.unref();
      waiting.push(go);
    });
  return {
    async run(task) {
      if (active < max) active++;
      else await turn();
      try {
        return await task();
      } finally {
        done();
      }
    },
    get active() {
      return active;
    },
  };
}

/**
 * `source` with a cool-down after a failure: for `cooldownMs` after it rejected, calls reject
 * with the same error without asking `source`. A success passes through (the source keeps it).
 */
export function withCooldown<T>(source: () => Promise<T>, cooldownMs: number, now: () => number): () => Promise<T> {
  let failure: { readonly error: unknown; readonly until: number } | undefined;
  return async () => {
    if (failure !== undefined && now() < failure.until) throw failure.error;
    try {
      const value = await source();
      failure = undefined;
      return value;
    } catch (error) {
      failure = { error, until: now() + cooldownMs };
      throw error;
    }
  };
}
