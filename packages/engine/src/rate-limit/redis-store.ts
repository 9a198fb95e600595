import type { Logger } from '@authlayer/core';
import { Redis, type RedisOptions } from 'ioredis';

/** A Redis connection for the limiters, and how to close it. */
export interface RedisStore {
  readonly client: Redis;
  /**
   * Told when a limiter fell back to memory. While the connection is up that means a command
   * timed out: Redis is slow. One warning, and the connection is dropped and made again, so that
   * commands fail at once (memory answers) until Redis answers its ready check again.
   */
  failedOver(): void;
  /**
   * `call` (a command, or a limiter's commands) settled in time, else `fallback()`: when `call`
   * fails (a refusal `isAnswer` accepts is passed on as it is) or has not settled after
   * {@link COMMAND_TIMEOUT_MS}. Either way the store is told (`failedOver`), and what `call` does
   * later is ignored.
   */
  inTime<T>(call: Promise<T>, fallback: () => T | Promise<T>, isAnswer?: (error: unknown) => boolean): Promise<T>;
  close(): void;
}

/** A command Redis has not answered in this time fails (and the limit falls back to memory). */
const COMMAND_TIMEOUT_MS = 250;

/**
 * The connection every Redis store of the middleware opens: a command fails at once while the
 * connection is down (no offline queue, as rate-limiter-flexible advises: a request never waits
 * for Redis), and ioredis reconnects quickly at first, then every 2 s at most, for as long as the
 * process runs.
 */
export const RECONNECTING: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  retryStrategy: (times) => Math.min(times * 100, 2000),
};

/** The three lines a store logs: Redis gone, back, and too slow. Never the URL. */
export interface RedisStoreWords {
  readonly unreachable: string;
  readonly reachable: string;
  readonly slow: string;
}

const RATE_LIMIT_WORDS: RedisStoreWords = {
  unreachable: 'rate_limit: Redis is unreachable; each process now limits on its own, in memory, until Redis is back',
  reachable: 'rate_limit: Redis is reachable; limits are shared by every replica',
  slow: `rate_limit: Redis did not answer within ${COMMAND_TIMEOUT_MS} ms; each process now limits on its own, in memory, until Redis answers again`,
};

/**
 * Connects to a Redis URL (`rate_limit.store`, and the shared stores of handlers, with their own
 * `words`). Commands fail at once while the connection is down (no
 * offline queue, as rate-limiter-flexible advises), and after 250 ms while it is up but Redis does
 * not answer (then the connection is made again: see `failedOver`), so the limiters fall back to
 * memory at once;
 * ioredis keeps reconnecting, and they return to Redis on `ready`. Logs one warning per outage
 * and one line when Redis is back, never the URL (it may hold a password). Waits for the first
 * connection or the first failure, so a service that starts with Redis up shares from its first
 * request; Redis down at start is not a start-up failure.
 */
export async function connectRedisStore(
  url: string,
  logger: Logger,
  words: RedisStoreWords = RATE_LIMIT_WORDS,
): Promise<RedisStore> {
  // No commandTimeout: ioredis's fires in the timers phase, before a reply that came in while
  // this process was busy is read, so a blocked event loop looked like a slow Redis. `inTime`
  // reads what arrived first.
  // A command in flight when the connection is dropped is not sent again on the next one: `inTime`
  // answered it already (memory counted the request), and Redis may still run the first copy.
  // Sent twice, a request would count twice (fewer than N admitted).
  const client = new Redis(url, { ...RECONNECTING, autoResendUnfulfilledCommands: false });
  let state: 'starting' | 'up' | 'down' | 'closed' = 'starting';
  const down = () => {
    // Our own close() ends the connection too (--check closes right after it connected): no outage.
    if (state === 'closed') return;
    if (state !== 'down') logger.warn(words.unreachable);
    state = 'down';
  };
  client.on('ready', () => {
    if (state === 'closed') return;
    if (state === 'down') logger.info(words.reachable);
    state = 'up';
  });
  client.on('close', down);
  // An 'error' listener is required (ioredis prints unhandled ones); its message is not logged.
  client.on('error', () => {
    if (client.status !== 'ready') down();
  });
  await new Promise<void>((resolve) => {
    client.once('ready', resolve);
    client.once('error', resolve);
  });
  let judging = false;
  // A connection that Redis closed under the command (it exited) is down, not slow: 'close' says so.
  const closing = () =>
    client.status !== 'ready' || client.stream.destroyed || client.stream.readableEnded || !client.stream.writable;
  const failedOver = () => {
    if (closing() || state === 'down' || judging) return;
    judging = true;
    setImmediate(() => {
      judging = false;
      if (closing() || state === 'down') return;
      logger.warn(words.slow);
      state = 'down';
      // Destroyed, not ended: a Redis that does not read would hold an ended socket open. ioredis
      // reconnects, and its ready check waits for Redis to answer while memory answers at once.
      client.stream.destroy();
    });
  };
  const inTime = <T>(
    call: Promise<T>,
    fallback: () => T | Promise<T>,
    isAnswer: (error: unknown) => boolean = () => false,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let settled = false;
      const late = () => {
        if (settled) return;
        settled = true;
        failedOver();
        Promise.resolve().then(fallback).then(resolve, reject);
      };
      // One turn more after the deadline: the poll phase in between reads a reply already received.
      const timer = setTimeout(() => setImmediate(late), COMMAND_TIMEOUT_MS).unref();
      call.then(
        (value) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          clearTimeout(timer);
          if (!isAnswer(error)) return late();
          settled = true;
          reject(error);
        },
      );
    });
  const close = () => {
    state = 'closed';
    client.disconnect();
  };
  return { client, failedOver, inTime, close };
}
