import type { HandlerDeps, Logger } from '@authlayer/core';
import { importWithPeers } from '../optional-peers.js';

/** `HandlerDeps.connectStore` of a middleware, and how to close every store it opened. */
export interface StoreConnector {
  readonly connectStore: NonNullable<HandlerDeps['connectStore']>;
  close(): void;
}

/**
 * Opens shared stores for handlers on demand (ioredis, an optional peer, is imported only then; a
 * missing one is a ConfigError at the field's path) and keeps them, to close with the middleware.
 */
export function createStoreConnector(logger: Logger): StoreConnector {
  const opened: { close(): void }[] = [];
  return {
    async connectStore(url, path) {
      const { connectSharedStore } = await importWithPeers(() => import('./redis-shared-store.js'), ['ioredis'], path);
      const store = await connectSharedStore(url, path, logger);
      opened.push(store);
      return store;
    },
    close: () => opened.splice(0).forEach((store) => store.close()),
  };
}
