import { expect } from '@jest/globals';
import type { AuthDecision } from '@authlayer/express';

// What the conformance suites compare of an answer and of a decision.

/** What a client sees of an answer that the adapters must agree on, byte for byte. */
export interface Seen {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | null>>;
  readonly body: string;
}

const COMPARED = ['www-authenticate', 'retry-after', 'ratelimit', 'ratelimit-policy', 'content-type'] as const;

/** Sends one request and keeps what the adapters must agree on. */
export async function see(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Seen> {
  const res = await fetch(base + path, { method, headers });
  const body = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(COMPARED.map((name) => [name, res.headers.get(name)])),
    body,
  };
}

/** A decision without what differs by nature between two runs (its duration, the request's id). */
export function comparable(decision: AuthDecision) {
  const { durationMs: _duration, requestId: _id, ...rest } = decision;
  return rest;
}

/** The adapters' names, in the order of each row of `Seen` (Express first). */
export type Named = readonly string[];

/**
 * Each adapter's answer in each row is the first adapter's (Express's), byte for byte; a
 * framework's own 404 (a path no route serves) only by its status. `clock`: the servers may be a
 * second apart (Retry-After and RateLimit's `t=` count down in whole seconds): those within one.
 */
export function expectTheSame(names: Named, cases: readonly string[], rows: readonly Seen[][], clock = false) {
  rows.forEach((row, index) => {
    const [first, ...others] = row.map((seen) => (clock ? withoutClock(seen) : { seen, retryAfter: 0 }));
    others.forEach(({ seen, retryAfter }, at) => {
      const label = { case: cases[index], adapter: names[at + 1] };
      if (first!.seen.status === 404) {
        return expect({ ...label, status: seen.status }).toEqual({ ...label, status: 404 });
      }
      expect({ ...label, ...seen }).toEqual({ ...label, ...first!.seen });
      expect(Math.abs(retryAfter - first!.retryAfter)).toBeLessThanOrEqual(1);
    });
  });
}

/** An answer without the seconds that count down; its Retry-After apart, to compare within one. */
function withoutClock(seen: Seen): { seen: Seen; retryAfter: number } {
  const { 'retry-after': retryAfter, ratelimit, ...headers } = seen.headers;
  const shown = ratelimit === undefined || ratelimit === null ? null : ratelimit.replace(/t=\d+/, 't=_');
  return { seen: { ...seen, headers: { ...headers, ratelimit: shown } }, retryAfter: Number(retryAfter ?? 0) };
}
