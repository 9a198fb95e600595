import type { ClaimsConfig } from './auth-config.js';
import { claimsSchema, type RawConfigOutput } from './config-schema.js';

/** A mode's `claims` section in camelCase; `null` (left out) gives every default. */
export function toClaimsConfig(raw: RawConfigOutput['auth']['jwt']['claims']): ClaimsConfig {
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
