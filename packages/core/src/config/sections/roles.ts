import { z } from 'zod';
import { shownInError } from '../config-error.js';
import { text, type SectionIssue } from '../fields.js';

/** One entry of the top-level `roles` list. */
export const roleSchema = z.strictObject({
  name: text,
  permissions: z.array(text).default([]),
});

/** One entry of the top-level `roles` list, converted. */
export interface RoleConfig {
  readonly name: string;
  readonly permissions: readonly string[];
}

/** The top-level `roles`, each role's permissions without repeats. */
export function toRolesConfig(raw: readonly z.output<typeof roleSchema>[]): RoleConfig[] {
  return raw.map((role) => ({ name: role.name, permissions: [...new Set(role.permissions)] }));
}

/** A role is named once. */
export function rolesIssues(roles: readonly z.output<typeof roleSchema>[]): SectionIssue[] {
  const seen = new Set<string>();
  const issues: SectionIssue[] = [];
  roles.forEach((role, index) => {
    if (seen.has(role.name))
      issues.push({ path: ['roles', index, 'name'], message: `duplicate role "${shownInError(role.name)}"` });
    seen.add(role.name);
  });
  return issues;
}
