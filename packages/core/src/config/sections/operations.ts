import { z } from 'zod';

// Operations: the top-level `rate_limit` and `metrics` fields.

/** `memory`, or a Redis URL shared by every replica. */
const STORE = /^(memory|rediss?:\/\/.+)$/;
const MAX_PROXIES = 16;
const PROXIES = `must be true, false or a number of proxies (0 to ${MAX_PROXIES})`;
const perMinute = z.int().min(1, 'must be at least 1').nullable().default(null);

/** The top-level `rate_limit` section (snake_case, as written in YAML); absent means off. */
export const rateLimitSchema = z.strictObject({
  requests_per_minute: perMinute,
  failed_auth_per_minute: perMinute,
  store: z.string().regex(STORE, 'must be memory or a redis:// (or rediss://) URL').default('memory'),
  // false, true (one proxy) or how many proxies stand in front (as Express's `trust proxy`).
  trust_proxy: z.union([z.boolean(), z.int().min(0, PROXIES).max(MAX_PROXIES, PROXIES)]).default(false),
});

/** The top-level `reload` section: how a running process learns of a changed config. */
export const reloadSchema = z
  .strictObject({
    // true: reload when the config file or a key file it names changes (or is re-linked).
    watch: z.boolean().default(false),
  })
  .prefault({});

/** The fields the top-level schema gains for operations. */
export const operationsFields = {
  rate_limit: rateLimitSchema.nullable().default(null),
  metrics: z.boolean().default(false),
  reload: reloadSchema,
};

/** The top-level `reload` section. */
export interface ReloadConfig {
  /**
   * Reload when the config file or any file it names (key files, `keys_file`) changes, is
   * replaced or is re-linked (a Kubernetes secret update). Only for a config read by `loadConfig`.
   * Default `false`.
   */
  readonly watch: boolean;
}

/** `rate_limit`, converted to camelCase, with every default filled in. */
export interface RateLimitConfig {
  /** Per authenticated identity (method + userId) on protected routes; `null`: no limit. */
  readonly requestsPerMinute: number | null;
  /** Per client address, counted on refused credentials and checked before any verification; `null`: no limit. */
  readonly failedAuthPerMinute: number | null;
  /** `memory` (per process) or a `redis://` URL (one limit shared by every replica). Default `memory`. */
  readonly store: string;
  /**
   * `false` (default): the socket's peer is the client. `true` (one proxy) or a number `n` of
   * proxies in front: the `n`-th `X-Forwarded-For` entry from the right (what the nearest trusted
   * proxy saw), never one the client wrote.
   */
  readonly trustProxy: boolean | number;
}

/** Converts the YAML's `rate_limit` once to {@link RateLimitConfig}. */
export function toRateLimitConfig(raw: z.output<typeof rateLimitSchema> | null): RateLimitConfig | null {
  if (raw === null) return null;
  return {
    requestsPerMinute: raw.requests_per_minute,
    failedAuthPerMinute: raw.failed_auth_per_minute,
    store: raw.store,
    trustProxy: raw.trust_proxy,
  };
}
