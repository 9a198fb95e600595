import type { AuthConfig, Logger } from '@authlayer/core';
import { importWithPeers } from './optional-peers.js';
import type { RateLimits } from './rate-limit/verdicts.js';

/** The optional peers the rate limits need. */
const RATE_LIMIT_PACKAGES = ['rate-limiter-flexible', 'ioredis'] as const;

/**
 * The rate limits, imported only when `rate_limit` is configured: rate-limiter-flexible and
 * ioredis are optional peers, so every process that does not use them neither installs nor
 * loads them. When one is not installed, a ConfigError names it.
 *
 * @param now - the clock of the quotas' calendar periods (default `Date.now`)
 * @param importRateLimits - replaceable so a test can make a package missing for real
 */
export async function loadRateLimits(
  config: NonNullable<AuthConfig['rateLimit']>,
  logger: Logger,
  now: (() => number) | undefined = undefined,
  importRateLimits: () => Promise<typeof import('./rate-limit/rate-limits.js')> = () =>
    import('./rate-limit/rate-limits.js'),
): Promise<RateLimits> {
  const loaded = await importWithPeers(importRateLimits, RATE_LIMIT_PACKAGES, 'rate_limit');
  return loaded.createRateLimits(config, logger, now);
}
