import type { AuthMethod } from '@authlayer/core';

/**
 * The contract's AuthContext JSON, every field spelled out here rather than taken from core (the
 * method's type is core's: the modes, and any mode package's name).
 */
export interface ContextJson {
  method: AuthMethod;
  userId: string | null;
  email: string | null;
  name: string | null;
  roles: string[];
  permissions: string[];
  scopes: string[];
  tenantId: string | null;
  /** Only with several JWT issuers (`providers`): the one that vouched. */
  issuer?: string;
}

/**
 * The AuthContext JSON a test expects: the given fields over the contract's empty identity
 * (nulls and empty lists). Written out independently of `createAuthContext`, so a wrong default
 * in core fails the tests that use it.
 */
export function expectedContext(fields: Partial<ContextJson> & Pick<ContextJson, 'method'>): ContextJson {
  return { userId: null, email: null, name: null, roles: [], permissions: [], scopes: [], tenantId: null, ...fields };
}
