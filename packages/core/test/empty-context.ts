import type { AuthContext, AuthMethod } from '../src/auth-context.js';

/** The AuthContext with every field left out, as the contract's JSON shows it. */
export function emptyContext(method: AuthMethod): AuthContext {
  return { method, userId: null, email: null, name: null, roles: [], permissions: [], scopes: [], tenantId: null };
}
