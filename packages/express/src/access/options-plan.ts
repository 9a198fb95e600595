import type { AccessDefault } from '@authlayer/core';
import type { Request } from 'express';
import { isPreflight } from '../credentials.js';
import { matchEntries, planFor, type AccessTable, type MatchedEntry, type Plan } from '@authlayer/engine/internal';

// Every method a key may name (core's access schema): asking each finds every entry of a path.
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * What an `OPTIONS` request needs. Express answers it for the routes at its path (`Allow: GET,
 * HEAD`), so it is judged by the entries of its path:
 * - a CORS preflight by the entries of the method it announces, when they make it public or
 *   optional (a browser sends a preflight without credentials; the contract's rule);
 * - else by the `OPTIONS` and `*` entries of the path, when one matches (a handler of its own);
 * - else by every entry of the path, whatever its method, all applying (as closed as the most
 *   closed: `OPTIONS /admin` under `* /admin{/*path}: deny` stays 403);
 * - else by `default`.
 */
export function planForOptions(table: AccessTable, req: Request, path: string, fallback: AccessDefault): Plan {
  if (isPreflight(req)) {
    const announced = String(req.headers['access-control-request-method']).toUpperCase();
    const plan = planFor(matchEntries(table, announced, path), fallback);
    if (!plan.denied && plan.rules.length === 0 && plan.authentication !== 'required') return plan;
  }
  const own = matchEntries(table, 'OPTIONS', path);
  if (own.length > 0) return planFor(own, fallback);
  const seen = new Set<MatchedEntry['entry']>();
  const any: MatchedEntry[] = [];
  for (const method of METHODS) {
    for (const matched of matchEntries(table, method, path)) {
      if (seen.has(matched.entry)) continue;
      seen.add(matched.entry);
      any.push(matched);
    }
  }
  return planFor(any, fallback);
}
