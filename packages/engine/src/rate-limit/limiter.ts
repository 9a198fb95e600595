import type { MaybePromise } from '@authlayer/core';
import { isPromiseLike } from '@authlayer/core/internal';

/** A limiter's answer to one point asked: over the limit or not, the points left, the window's rest. */
export interface Taken {
  readonly over: boolean;
  readonly remaining: number;
  /** Milliseconds until the key's window ends. */
  readonly msBeforeNext: number;
}

/**
 * What the limits ask of a limiter: a point taken, a point given back. The memory store answers in
 * the same turn; Redis with a Promise, which rejects only when the store failed.
 */
export interface Limiter {
  /** `customDuration` (seconds): the window of a key this call creates (a quota's period). */
  consume(key: string, options?: { customDuration?: number }): MaybePromise<Taken>;
  reward(key: string): MaybePromise<void>;
}

/** `then` for a value that may be a Promise: in the same turn when it is not. */
export function after<T, R>(value: MaybePromise<T>, then: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromiseLike(value) ? value.then(then) : then(value);
}
