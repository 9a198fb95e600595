import type { ClientLimits, MaybePromise } from '@authlayer/core';
import type { LimitState } from './headers.js';

// The limits' types alone, with no rate-limiter-flexible or ioredis type in them: the adapters'
// declarations reach them, and an app without those optional peers must type-check.

/** One failure reserved before a verification; settled exactly once when the verdict is known. */
export interface FailureReservation {
  /** The credentials were refused (a guess): the reserved failure stays counted. */
  keep(): void;
  /**
   * Nothing to count (accepted, no credentials, the provider failed): the failure is given back (in
   * the same turn with the memory store).
   */
  release(): MaybePromise<void>;
}

/** The answer for one authenticated request: the wait (ms) when over a limit, and every limit's state. */
export interface RequestVerdict {
  readonly wait: number | null;
  readonly states: readonly LimitState[];
}

/**
 * The limits of a config's `rate_limit`; a wait is in milliseconds, `null` when none. With the
 * memory store every answer comes in the same turn; with Redis, as a Promise.
 */
export interface RateLimits {
  /**
   * Before any verification: reserves one failure of the client address (`failed_auth_per_minute`),
   * or resolves with the wait when the address is over it. See `createFailureBudget`.
   */
  reserveFailure(address: string): MaybePromise<FailureReservation | number>;
  /**
   * After success: counts one request for the identity against `requests_per_minute` (or its
   * client's own) and its client's quota; the wait when over one, and every limit's state.
   */
  consumeRequest(identity: string, client?: ClientLimits): MaybePromise<RequestVerdict>;
  /** Closes the Redis connection, if any. */
  close(): void;
}
