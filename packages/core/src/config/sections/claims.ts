import { z } from 'zod';
import { DEFAULTS } from '../defaults.js';
import { claimPath } from '../fields.js';

/** `auth.jwt.claims`, `auth.oauth2.claims`; `null` (or left out) means every default. */
export const claimsSchema = z.strictObject({
  user_id: claimPath.default(DEFAULTS.claims.userId),
  email: claimPath.default(DEFAULTS.claims.email),
  name: claimPath.default(DEFAULTS.claims.name),
  roles: claimPath.default(DEFAULTS.claims.roles),
  permissions: claimPath.default(DEFAULTS.claims.permissions),
  scopes: claimPath.default(DEFAULTS.claims.scopes),
  tenant_id: claimPath.nullable().default(DEFAULTS.claims.tenantId),
});

/** Claim names (dot paths allowed) for each identity field. */
export interface ClaimsConfig {
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly roles: string;
  readonly permissions: string;
  readonly scopes: string;
  readonly tenantId: string | null;
}

/** A mode's `claims` section in camelCase; `null` (left out) gives every default. */
export function toClaimsConfig(raw: z.output<typeof claimsSchema> | null): ClaimsConfig {
  const claims = raw ?? claimsSchema.parse({});
  return {
    userId: claims.user_id,
    email: claims.email,
    name: claims.name,
    roles: claims.roles,
    permissions: claims.permissions,
    scopes: claims.scopes,
    tenantId: claims.tenant_id,
  };
}
