import { z } from 'zod';

// Operations: the top-level `rate_limit` and `metrics` fields (contract, "Operations").

/** `memory`, or a Redis URL shared by every replica. */
const STORE = /^(memory|rediss?:\/\/.+)$/;
const perMinute = z.int().min(1, 'must be at least 1').nullable().default(null);

/** The top-level `rate_limit` section (snake_case, as written in YAML); absent means off. */
export const rateLimitSchema = z.strictObject({
  requests_per_minute: perMinute,
  failed_auth_per_minute: perMinute,
  store: z.string().regex(STORE, 'must be memory or a redis:// (or rediss://) URL').default('memory'),
  trust_proxy: z.boolean().default(false),
});

/** The fields the top-level schema gains for operations. */
export const operationsFields = {
  rate_limit: rateLimitSchema.nullable().default(null),
  metrics: z.boolean().default(false),
};

/** `rate_limit`, converted to camelCase, with every default filled in. */
export interface RateLimitConfig {
  /** Per authenticated identity (method + userId) on protected routes; `null`: no limit. */
  readonly requestsPerMinute: number | null;
  /** Per client address, counted on refused credentials and checked before any verification; `null`: no limit. */
  readonly failedAuthPerMinute: number | null;
  /** `memory` (per process) or a `redis://` URL (one limit shared by every replica). Default `memory`. */
  readonly store: string;
  /** When true, the client address is the first entry of `X-Forwarded-For`. Default `false`. */
  readonly trustProxy: boolean;
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
