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
  /** Its member of `RateLimit-Policy`, when made once for the limit instead of per request. */
  readonly policy?: string;
}

/** A limit's member of `RateLimit-Policy`. */
export const policyMember = (name: string, limit: number, windowSeconds: number): string =>
  `"${name}";q=${limit};w=${windowSeconds}`;

const stateMember = ({ name, remaining, resetSeconds }: LimitState): string =>
  `"${name}";r=${remaining};t=${resetSeconds}`;
const policyOf = (state: LimitState): string =>
  state.policy ?? policyMember(state.name, state.limit, state.windowSeconds);

/**
 * The IETF RateLimit headers (draft-ietf-httpapi-ratelimit-headers-08, the form express-rate-limit
 * calls `draft-8`): each limit a list member named after its window.
 *
 * @example
 * // RateLimit-Policy: "minute";q=1200;w=60, "day";q=100000;w=86400
 * // RateLimit: "minute";r=1199;t=42, "day";r=99871;t=38127
 */
export function rateLimitHeaders(states: readonly LimitState[]): { policy: string; state: string } {
  // One limit (a minute, no quota) is what nearly every request has: no arrays to join.
  if (states.length === 1) {
    const one = states[0]!;
    return { policy: one.policy ?? policyMember(one.name, one.limit, one.windowSeconds), state: stateMember(one) };
  }
  return { policy: states.map(policyOf).join(', '), state: states.map(stateMember).join(', ') };
}
