import type { RoleConfig } from './config/auth-config.js';

/** Turns role names into the permissions the top-level `roles` section gives them. */
export type PermissionResolver = (roles: readonly string[], own: readonly string[]) => string[];

/**
 * Builds a resolver that returns the union of a caller's own permissions and the permissions of
 * each of its roles, own ones first, without duplicates. Unknown roles add nothing.
 *
 * @example
 * const resolve = createPermissionResolver([{ name: 'admin', permissions: ['invoke'] }]);
 * resolve(['admin'], ['read']); // ['read', 'invoke']
 */
export function createPermissionResolver(roles: readonly RoleConfig[]): PermissionResolver {
  const byName = new Map<string, readonly string[]>();
  for (const role of roles) byName.set(role.name, role.permissions);
  return (callerRoles, own) => {
    const result = new Set(own);
    for (const role of callerRoles) for (const permission of byName.get(role) ?? []) result.add(permission);
    return [...result];
  };
}
