import type { Flow, Outcome } from './decide.js';

/**
 * What the `access` table makes of one request: go on untouched (`public`), the answer of a
 * `deny` (already decided), or the flow that authenticates it (its plan is in the request's scope).
 */
export type AccessStep =
  | { readonly kind: 'public' }
  | { readonly kind: 'denied'; readonly outcome: Outcome }
  | { readonly kind: 'flow'; readonly flow: Flow };
