import type { OAuth2Config } from './config/oauth2-section.js';
import { createHash } from 'node:crypto';
import { ConfigError, type HandlerDeps } from '@authlayer/core';

/** Active introspection answers shared by every replica (`auth.oauth2.cache_store`). */
export interface SharedAnswers {
  /** The answer another replica (or this one) kept under the token's digest, if any. */
  get(key: string): Promise<Record<string, unknown> | undefined>;
  /** Keeps an active answer that passed every check, for `ttlMs`. */
  set(key: string, answer: Readonly<Record<string, unknown>>, ttlMs: number): Promise<void>;
}

const PATH = 'auth.oauth2.cache_store';

/**
 * The shared answers of `cache_store` through `deps.connectStore` (which `@authlayer/express`
 * gives), or `null` without one. Keys are the local cache's (a SHA-256 digest of the token, never
 * the token) under a prefix that digests the endpoint and the client id, so two configs on one
 * Redis never read each other's answers. The store never fails a request: Redis down is a miss.
 *
 * @throws ConfigError when `cache_store` is set but nothing can connect it (a handler made
 *   without `@authlayer/express`)
 */
export async function connectSharedAnswers(settings: OAuth2Config, deps: HandlerDeps): Promise<SharedAnswers | null> {
  if (settings.cacheStore === null) return null;
  if (deps.connectStore === undefined) {
    throw new ConfigError({
      path: PATH,
      message: 'needs a shared store: create the handler with createAuthMiddleware',
    });
  }
  const store = await deps.connectStore(settings.cacheStore, PATH);
  const scope = createHash('sha256')
    .update(JSON.stringify([settings.introspectionUrl ?? settings.issuer, settings.clientId]))
    .digest('base64url')
    .slice(0, 16);
  const prefix = `authlayer:introspection:${scope}:`;
  return {
    async get(key) {
      // The store resolves on failure; one of your own that rejects is a miss too.
      const text = await store.get(`${prefix}${key}`).catch(() => undefined);
      if (text === undefined) return undefined;
      try {
        const answer: unknown = JSON.parse(text);
        // Redis is shared: anything but an object is a miss, never a crash.
        return typeof answer === 'object' && answer !== null && !Array.isArray(answer)
          ? (answer as Record<string, unknown>)
          : undefined;
      } catch {
        return undefined;
      }
    },
    set: (key, answer, ttlMs) => store.set(`${prefix}${key}`, JSON.stringify(answer), ttlMs).catch(() => undefined),
  };
}
