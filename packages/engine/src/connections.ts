import type { AuthConfig, HandlerDeps, Logger, ReplayCache } from '@authlayer/core';
import type { LoadedMode } from './load-mode.js';
import { loadRateLimits } from './load-rate-limits.js';
import type { RateLimits } from './rate-limit/verdicts.js';
import { createCarryPool } from './reload/carry-pool.js';
import { createRevocationFlow, type RevocationFlow } from './revocation/revocation-flow.js';
import { createStoreConnector } from './shared-store/store-connector.js';

/** The handlers' deps that do not change across generations, the engine's clock among them. */
export type StaticDeps = Omit<HandlerDeps, 'carry' | 'connectStore' | 'replayCache' | 'now'> & {
  readonly now: () => number;
};

/**
 * What outlives a generation: the rate limits and the revocation store of the first config (their
 * Redis connections), the shared stores the handlers connect to, and the pool that carries a
 * handler's open resources (a remote key set) from one generation to the next. A reload asks
 * `begin()` for a new pool and then commits or aborts it.
 */
export class Connections {
  private pool = createCarryPool();
  private readonly stores;
  private first: AuthConfig | null = null;
  private limits: RateLimits | null = null;
  private revocation: RevocationFlow | null = null;

  constructor(
    private readonly base: StaticDeps,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {
    this.stores = createStoreConnector(logger);
  }

  /** The first config's revocation flow (its store and list), once a generation was built. */
  get revocationFlow(): RevocationFlow | null {
    return this.revocation;
  }

  /** The deps of the handlers of a generation about to be built, with the pool of `begin()`. */
  handlerDeps(config: AuthConfig): HandlerDeps & { readonly now: () => number } {
    const { carry } = this.pool;
    // DPoP proofs' jti are shared through revocation.store's Redis (SET NX PX), so a proof replayed
    // to another replica is refused too; the store is the first config's, connected before any request.
    const replayCache: ReplayCache = {
      firstSeen: (key, ttlMs) =>
        this.revocation === null
          ? Promise.reject(new Error('not connected'))
          : this.revocation.store.firstSeen(key, ttlMs),
    };
    return {
      ...this.base,
      // One connection per store URL, kept across reloads (a handler connects at creation).
      connectStore: (url, path) => carry.keep(`shared-store:${url}`, () => this.stores.connectStore(url, path)),
      carry,
      ...((this.first ?? config).revocation === null ? {} : { replayCache }),
    };
  }

  /** A new pool for a reload, carrying what the serving one holds; `end(true)` commits it. */
  begin(): { end(committed: boolean): void } {
    const previous = this.pool;
    this.pool = createCarryPool(previous);
    return {
      end: (committed) => {
        if (committed) return this.pool.commit();
        this.pool.abort();
        this.pool = previous;
      },
    };
  }

  /** The rate limits of the first config: every generation's (their store is a connection). */
  async limitsFor(config: AuthConfig): Promise<RateLimits | null> {
    if (this.first === null) {
      this.first = config;
      this.limits = config.rateLimit === null ? null : await loadRateLimits(config.rateLimit, this.logger, this.now);
    } else if (JSON.stringify(config.rateLimit) !== JSON.stringify(this.first.rateLimit)) {
      this.logger.warn('config reload: rate_limit changed; it is kept as it was at start until a restart');
    }
    return this.limits;
  }

  /**
   * The revocation check of a generation's handlers, on the first config's store: the store follows
   * the list for every generation; the refusals are each generation's own (its modes' challenges).
   * Asked after `limitsFor`.
   */
  async revocationFor(config: AuthConfig, handlers: LoadedMode['handlers']): Promise<RevocationFlow | null> {
    const initial = this.first!;
    if (config !== initial && JSON.stringify(config.revocation) !== JSON.stringify(initial.revocation))
      this.logger.warn('config reload: revocation changed; it is kept as it was at start until a restart');
    if (initial.revocation === null) return null;
    const flow = await createRevocationFlow(
      initial.revocation,
      handlers,
      this.logger,
      this.now,
      this.revocation?.store,
    );
    this.revocation ??= flow;
    return flow;
  }

  /** Releases every connection and what the pool holds. */
  close(): void {
    this.pool.close();
    this.limits?.close();
    this.revocation?.store.close();
    this.stores.close();
  }
}
