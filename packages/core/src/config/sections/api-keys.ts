import { z } from 'zod';
import type { ApiKeyEntryConfig } from './auth-config.js';

// `auth.api_keys.keys`: named keys for many clients (contract, "API keys for many clients").

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envVarName = z.string().regex(ENV_VAR_NAME, 'must be an environment variable name (letters, digits, _)');
const date = z.iso.date({ error: 'must be a date written YYYY-MM-DD' });

/** One entry of `auth.api_keys.keys`. `roles` and `tenant_id` stay unset when not written. */
export const apiKeyEntrySchema = z.strictObject({
  name: z
    .string()
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters')
    // The name is the userId and appears in log lines: no control characters.
    .regex(/^[^\x00-\x1f\x7f]+$/, 'must not hold control characters'),
  env_var: envVarName.optional(),
  hash_env: envVarName.optional(),
  roles: z.array(z.string().min(1, 'must not be empty')).optional(),
  tenant_id: z.string().min(1, 'must not be empty').nullable().optional(),
  expires: date.nullable().default(null),
  created: date.nullable().default(null),
});

/** `auth.api_keys.keys`: at least one entry when present. */
export const apiKeyEntriesSchema = z.array(apiKeyEntrySchema).min(1, 'must list at least one key');

type RawEntry = z.output<typeof apiKeyEntrySchema>;
interface RawApiKeys {
  readonly env_var?: string | undefined;
  readonly prefix: string | null;
  readonly keys?: readonly RawEntry[] | undefined;
}
type Issue = { path: (string | number)[]; message: string };

/**
 * The rules that span fields: `keys` excludes `env_var` and `prefix`; each entry has exactly one
 * of `env_var` and `hash_env`; entries of one name are one client, so they may not disagree on
 * `roles` or `tenant_id` (one entry may say them for all).
 */
export function apiKeyEntryIssues(apiKeys: RawApiKeys): Issue[] {
  const { keys } = apiKeys;
  if (keys === undefined) return [];
  const at = (index: number, ...rest: string[]) => ['auth', 'api_keys', 'keys', index, ...rest];
  const issues: Issue[] = [];
  const excluded = [apiKeys.env_var !== undefined && 'env_var', apiKeys.prefix !== null && 'prefix'].filter(Boolean);
  if (excluded.length > 0) {
    const fields = excluded.map((field) => `auth.api_keys.${String(field)}`).join(' and ');
    issues.push({
      path: ['auth', 'api_keys', 'keys'],
      message: `excludes ${fields} (each key names its own variable)`,
    });
  }
  const first = new Map<string, number>();
  keys.forEach((entry, index) => {
    if ((entry.env_var === undefined) === (entry.hash_env === undefined)) {
      issues.push({ path: at(index), message: 'needs exactly one of env_var and hash_env' });
    }
    const seen = first.get(entry.name);
    if (seen === undefined) return void first.set(entry.name, index);
    const other = keys[seen]!;
    if (entry.roles !== undefined && other.roles !== undefined && !sameSet(entry.roles, other.roles)) {
      issues.push({
        path: at(index, 'roles'),
        message: `differs from keys[${seen}].roles (entries of one name are one client)`,
      });
    }
    if (entry.tenant_id != null && other.tenant_id != null && entry.tenant_id !== other.tenant_id) {
      issues.push({
        path: at(index, 'tenant_id'),
        message: `differs from keys[${seen}].tenant_id (entries of one name are one client)`,
      });
    }
  });
  return issues;
}

/**
 * Converts the entries once to camelCase; each entry gets its client's `roles` and `tenantId`
 * (from whichever entry of that name says them).
 */
export function toApiKeyEntries(keys: readonly RawEntry[] | undefined): ApiKeyEntryConfig[] | null {
  if (keys === undefined) return null;
  const roles = new Map<string, readonly string[]>();
  const tenants = new Map<string, string>();
  for (const entry of keys) {
    if (entry.roles !== undefined && !roles.has(entry.name)) roles.set(entry.name, [...new Set(entry.roles)]);
    if (entry.tenant_id != null && !tenants.has(entry.name)) tenants.set(entry.name, entry.tenant_id);
  }
  return keys.map((entry) => ({
    name: entry.name,
    envVar: entry.env_var ?? null,
    hashEnv: entry.hash_env ?? null,
    roles: [...(roles.get(entry.name) ?? [])],
    tenantId: tenants.get(entry.name) ?? null,
    expires: entry.expires,
    created: entry.created,
  }));
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}
