import type { AuthContext, Logger } from '@authlayer/core';
import { Redis, type RedisOptions } from 'ioredis';
import { RECONNECTING } from '../rate-limit/redis-store.js';
import {
  loadRevocations,
  pairsOf,
  parseChange,
  REVOCATIONS_CHANNEL,
  revocationCommands,
} from './revocation-commands.js';
import type { RevocationCommands } from './revocation-entry.js';
import { createRevocationList } from './revocation-list.js';

/** `loaded`: the list is current; `stale`: Redis is down, the last list known is enforced; `unavailable`: never loaded. */
export type RevocationState = 'loaded' | 'stale' | 'unavailable';

/** A replica's revocation list: a local copy, kept current from Redis, asked on every request. */
export interface RevocationStore extends RevocationCommands {
  /** From memory, no Redis call: see `RevocationList.isRevoked`. */
  isRevoked(context: AuthContext): boolean;
  /** Applies a change this process made to its copy at once (Redis tells the others). */
  apply(entry: string, until: number | null): void;
  /** Calls `listener` after each change of this process's copy (a message, its own, a full load). */
  onChange(listener: () => void): void;
  state(): RevocationState;
  close(): void;
}

const CONNECTION: RedisOptions = {
  ...RECONNECTING,
  // Bounds a full load too: a list of a hundred thousand entries loads in well under this.
  commandTimeout: 2000,
};
/** How soon a full load that failed is tried again (the command connection may come back later). */
const RELOAD_RETRY_MS = 200;
/** The longest start-up waits for the first load. */
const START_WAIT_MS = 5000;

/**
 * Follows the list at `url`: subscribes to its changes, then loads it in full, and does both
 * again each time the subscription comes back, so a change made while it was away is never
 * missed. Waits for the first load (or the first failure to connect): a service that starts with
 * Redis up enforces the list from its first request; one that starts with Redis down goes on, with
 * a warning. One warning per outage (the known entries stay enforced) and one line when the list
 * is loaded again; never the URL (it may hold a password).
 */
export async function followRevocations(url: string, logger: Logger, now: () => number): Promise<RevocationStore> {
  const client = new Redis(url, CONNECTION);
  const subscriber = new Redis(url, { ...CONNECTION, autoResubscribe: false });
  const list = createRevocationList();
  const listeners: (() => void)[] = [];
  // A listener's failure must not stop the list from following Redis: it is the listener's to log.
  const changed = (): void => {
    for (const listener of listeners) listener();
  };
  let state: RevocationState = 'unavailable';
  let warned = false;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | undefined;
  let settle: () => void = () => {};
  const started = new Promise<void>((resolve) => (settle = resolve));

  const outage = () => {
    attempt += 1;
    clearTimeout(retry);
    settle();
    if (state === 'loaded') state = 'stale';
    if (warned || closed) return;
    warned = true;
    logger.warn(
      state === 'stale'
        ? 'revocation.store: Redis is unreachable; the revocations known here stay enforced, and changes arrive once it is back'
        : 'revocation.store: Redis is unreachable; the revocation list is not loaded (/readyz: revocations unavailable) until it is back',
    );
  };
  const load = async (mine: number): Promise<void> => {
    const again = () => void (retry = setTimeout(() => void load(mine), RELOAD_RETRY_MS).unref());
    // The two connections come up one after the other: wait for the command connection.
    if (client.status !== 'ready') return again();
    list.beginLoad();
    try {
      const snapshot = pairsOf(await loadRevocations(client, now()));
      if (mine !== attempt) return list.abortLoad();
      list.finishLoad(snapshot);
      changed();
    } catch {
      list.abortLoad();
      if (mine !== attempt) return;
      if (!warned) logger.warn('revocation.store: the revocation list could not be loaded from Redis; trying again');
      warned = true;
      settle();
      return again();
    }
    logger.info(
      warned
        ? `revocation.store: Redis is reachable; the revocation list is loaded again (${list.size} entries)`
        : `revocation.store: the revocation list is loaded (${list.size} entries)`,
    );
    state = 'loaded';
    warned = false;
    settle();
  };
  subscriber.on('message', (_channel: string, message: string) => {
    const change = parseChange(message);
    if (change === null) return;
    list.apply(change.entry, change.until);
    changed();
  });
  subscriber.on('ready', () => {
    const mine = ++attempt;
    // Subscribed first, loaded second: a change made meanwhile is in the snapshot or told after it.
    void subscriber.subscribe(REVOCATIONS_CHANNEL).then(() => load(mine), outage);
  });
  subscriber.on('close', outage);
  // An 'error' listener is required (ioredis prints unhandled ones); its message is not logged.
  subscriber.on('error', () => {
    if (subscriber.status !== 'ready') outage();
  });
  client.on('error', () => {});
  // A bound on the wait, whatever happens: start-up goes on, and /readyz tells.
  setTimeout(settle, START_WAIT_MS).unref();
  await started;
  return {
    ...revocationCommands(client, now),
    isRevoked: (context) => list.isRevoked(context, now()),
    apply: (entry, until) => {
      list.apply(entry, until);
      changed();
    },
    onChange: (listener) => void listeners.push(listener),
    state: () => state,
    close() {
      closed = true;
      attempt += 1;
      clearTimeout(retry);
      subscriber.disconnect();
      client.disconnect();
    },
  };
}

/**
 * A connection for changing and listing the list, with no copy, no subscription, no reconnection
 * (see `connectRevocations`).
 *
 * @throws Error when Redis cannot be reached (the message never holds the URL)
 */
export async function openRevocationCommands(
  url: string,
  now: () => number,
): Promise<RevocationCommands & { close(): void }> {
  const client = new Redis(url, { ...CONNECTION, retryStrategy: () => null, lazyConnect: true });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch {
    client.disconnect();
    throw new Error('revocation.store: Redis is unreachable');
  }
  return { ...revocationCommands(client, now), close: () => client.disconnect() };
}
