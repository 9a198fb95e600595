import type { AuthConfig } from '@authlayer/core';

/** A Redis store URL or Sentinel list (`redis://`, `rediss://`, `{ sentinels }`). */
function isRedis(store: unknown): boolean {
  return typeof store === 'object' ? store !== null : typeof store === 'string' && /^rediss?:/.test(store);
}

/**
 * The start-up warning of a config whose modes need Node.js (a Redis store, through ioredis and
 * `node:net`), or null: such an app serves on Node (and Bun, Deno with Node compatibility), not in
 * a Cloudflare Worker or another runtime without TCP sockets.
 */
export function nodeOnlyWarning(config: AuthConfig): string | null {
  const needs: string[] = [];
  if (isRedis(config.rateLimit?.store)) needs.push('rate_limit.store');
  if (isRedis(config.revocation?.store)) needs.push('revocation.store');
  if (needs.length === 0) return null;
  return `${needs.join(' and ')} on Redis need Node.js (ioredis over node:net): this app runs on Node (or a runtime with Node's net), not in a Worker`;
}
