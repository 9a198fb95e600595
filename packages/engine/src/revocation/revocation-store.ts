import type { AuthContext, Logger, RevocationConfig } from '@authlayer/core';
import type { Redis } from 'ioredis';
import {
  loadRevocations,
  pairsOf,
  parseChange,
  REVOCATIONS_CHANNEL,
  revocationCommands,
} from './revocation-commands.js';
import { CONNECTION, openStoreConnection } from './revocation-connection.js';
import type { RevocationCommands } from './revocation-entry.js';
import { currentGeneration, GENERATION_KEY, RELOAD_MESSAGE, writeBack } from './revocation-generation.js';
import { kindOf } from '../request/kind-of.js';
import { startHeartbeat } from './revocation-heartbeat.js';
import { createRevocationList, type RevocationList } from './revocation-list.js';

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

/** How soon a full load that failed is tried again (the command connection may come back later). */
const RELOAD_RETRY_MS = 200;
/** The longest start-up waits for the first load. */
const START_WAIT_MS = 5000;
/** Redis is asked for its generation marker this often, and counts as down past the deadline: at most 3 s. */
const HEARTBEAT = { everyMs: 1000, withinMs: 2000 };

/**
 * Follows the list at `store`: subscribes to its changes, then loads it in full, and does both
 * again each time the subscription comes back, so a change made while it was away is never
 * missed. A store whose generation marker is missing or new lost its data: the entries this
 * replica holds are written back before the load, so no replica adopts an empty list. A heartbeat
 * tells a Redis that stopped answering with its connection open, and sees a FLUSHALL.
 * Waits for the first load (or the first failure to connect): a service that starts with Redis up
 * enforces the list from its first request; one that starts with Redis down goes on, with a
 * warning. One warning per outage (the known entries stay enforced) and one line when the list is
 * loaded again; never the URL (it may hold a password).
 */
export async function followRevocations(
  store: RevocationConfig['store'],
  logger: Logger,
  now: () => number,
): Promise<RevocationStore> {
  const client = openStoreConnection(store, CONNECTION);
  const subscriber = openStoreConnection(store, { ...CONNECTION, autoResubscribe: false });
  const list = createRevocationList();
  const listeners: (() => void)[] = [];
  const changed = (): void => tellAll(listeners, logger);
  let state: RevocationState = 'unavailable';
  let warned = false;
  let closed = false;
  let silent = false;
  let attempt = 0;
  // The marker of the store the list was last loaded from (null: never loaded).
  let generation: string | null = null;
  let primary: string | null = null;
  // The write-back in flight, if any (see `restore`).
  let writing: Promise<void> | null = null;
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
  // Before a load: a store whose marker is not the one the list came from gets the list back.
  // A new primary (a failover) may have missed the last writes of the old one while the marker
  // came through: a different address counts as a different store too.
  const restore = async (): Promise<void> => {
    const current = await currentGeneration(client);
    // The marker another load's write-back in flight took is trusted only once that write-back
    // succeeded: a load trusting it early would adopt a list without the entries if it failed.
    while (writing !== null) await writing.catch(() => undefined);
    const address = addressOf(client);
    const known = generation === null || (current === generation && address === primary);
    const before = [generation, primary] as const;
    // Taken before the write-back: its reload message must not start another one.
    [generation, primary] = [current, address];
    if (known) return;
    const entries = list.inForce(now());
    if (entries.length > 0) {
      writing = writeBack(client, entries, now())
        .catch((error: unknown) => {
          [generation, primary] = before;
          throw error;
        })
        .finally(() => (writing = null));
      await writing;
    }
    logger.warn(
      `revocation.store: Redis lost the revocation list or is a new primary (a restart without persistence, FLUSHALL or a failover); wrote back the ${entries.length} entries in force here`,
    );
  };
  const load = async (mine: number): Promise<void> => {
    const again = () => void (retry = setTimeout(() => void load(mine), RELOAD_RETRY_MS).unref());
    // The two connections come up one after the other: wait for the command connection.
    if (client.status !== 'ready') return again();
    list.beginLoad();
    try {
      await restore();
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
    [state, warned, silent] = ['loaded', false, false];
    settle();
  };
  const reload = () => void (closed || load(++attempt));
  subscriber.on('message', (_channel: string, message: string) => {
    if (message === RELOAD_MESSAGE) return reload();
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
  // The command connection may follow a failover after the subscription did: a load taken
  // meanwhile read the old primary's address, so the new one loads (and writes back) again.
  client.on('ready', () => {
    if (generation !== null && addressOf(client) !== primary) reload();
  });
  const heartbeat = startHeartbeat(
    () => (client.status === 'ready' && !closed ? client.get(GENERATION_KEY) : null),
    {
      answered: (marker) => {
        // Back from silence, or the marker changed under a loaded list (FLUSHALL): load again.
        if (silent || (state === 'loaded' && generation !== null && marker !== generation)) reload();
      },
      silent: () => {
        if (!silent) outage();
        silent = true;
      },
    },
    HEARTBEAT.everyMs,
    HEARTBEAT.withinMs,
  );
  // A bound on the wait, whatever happens: start-up goes on, and /readyz tells.
  setTimeout(settle, START_WAIT_MS).unref();
  await started;
  return storeOf(list, changed, listeners, () => state, {
    commands: revocationCommands(client, now, () => client.status === 'ready' && !silent),
    now,
    close() {
      closed = true;
      attempt += 1;
      clearTimeout(retry);
      heartbeat.stop();
      subscriber.disconnect();
      client.disconnect();
    },
  });
}

/**
 * Calls each listener in turn. One that throws must not stop the list from following Redis (a
 * throw would escape the message handler, or fail a full load that then retries forever), nor
 * the listeners after it from hearing of the change: it is logged by its kind, never its message.
 */
function tellAll(listeners: readonly (() => void)[], logger: Logger): void {
  for (const listener of listeners) {
    try {
      listener();
    } catch (error) {
      logger.error(`revocation.store: a change listener failed (${kindOf(error)})`);
    }
  }
}

/** The address the command connection reached (the primary, behind Sentinel). */
function addressOf(client: Redis): string {
  // Asked only while the connection is up: its socket has both (`undefined` would compare as well).
  const { remoteAddress, remotePort } = client.stream;
  return `${String(remoteAddress)}:${String(remotePort)}`;
}

/** The store's face: the list from memory, the commands through Redis. */
function storeOf(
  list: RevocationList,
  changed: () => void,
  listeners: (() => void)[],
  state: () => RevocationState,
  parts: { commands: RevocationCommands; now: () => number; close(): void },
): RevocationStore {
  return {
    ...parts.commands,
    isRevoked: (context) => list.isRevoked(context, parts.now()),
    apply: (entry, until) => {
      list.apply(entry, until);
      changed();
    },
    onChange: (listener) => void listeners.push(listener),
    state,
    close: parts.close,
  };
}
