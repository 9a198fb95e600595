// Kept apart from the limiters: the middleware imports it on every path, and rate-limiter-flexible
// (an optional peer) must stay out of processes without rate limits.

/** One limit as the IETF RateLimit headers tell it. */
export interface LimitState {
  /** The policy's name in the headers: `minute`, or `day` / `month` for a quota. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  /** Seconds until the window ends and the count starts again. */
  readonly resetSeconds: number;
}

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers-08, the form express-rate-limit
 * calls `draft-8`): each limit a list member named after its window.
 *
 * @example
 * // RateLimit-Policy: "minute";q=1200;w=60, "day";q=100000;w=86400
 * // RateLimit: "minute";r=1199;t=42, "day";r=99871;t=38127
 */
export function rateLimitHeaders(states: readonly LimitState[]): { policy: string; state: string } {
  return {
    policy: states.map(({ name, limit, windowSeconds }) => `"${name}";q=${limit};w=${windowSeconds}`).join(', '),
    state: states.map(({ name, remaining, resetSeconds }) => `"${name}";r=${remaining};t=${resetSeconds}`).join(', '),
  };
}
