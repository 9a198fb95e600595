import type { HandlerDescription, Logger, PermissionResolver } from '@authlayer/core';
import type { ExpectedKey } from './expected-keys.js';

/** What is known of a key without the key: where, whose, which variable, its dates. */
export type KeyFacts = Omit<ExpectedKey, 'sha256'>;

const DAY_MS = 86_400_000;

/** Milliseconds of `YYYY-MM-DD` at 00:00 UTC; `null` stays `null`. */
export function startOfDay(date: string | null): number | null {
  return date === null ? null : Date.parse(`${date}T00:00:00Z`);
}

/** `expires`: from that day (UTC) on, the key is refused. */
export function isExpired(key: Pick<KeyFacts, 'expires'>, now: number): boolean {
  const expiresAt = startOfDay(key.expires);
  return expiresAt !== null && now >= expiresAt;
}

/** `created` older than `rotation_days` (informational: the key is never refused for its age). */
export function isRotationDue(key: Pick<KeyFacts, 'created'>, rotationDays: number, now: number): boolean {
  const createdAt = startOfDay(key.created);
  return createdAt !== null && now - createdAt > rotationDays * DAY_MS;
}

/** The start-up warnings about keys: each names the client and the entry, never a key or digest. */
export function keyWarnings(keys: readonly KeyFacts[], rotationDays: number, now: number): string[] {
  const warnings: string[] = [];
  for (const key of keys) {
    const who = `API key "${key.name}" (${key.path})`;
    if (isExpired(key, now)) warnings.push(`${who} expired on ${key.expires!} and is refused`);
    else if (isRotationDue(key, rotationDays, now)) {
      warnings.push(`${who} was created on ${key.created!}, more than rotation_days (${rotationDays}) ago: rotate it`);
    }
  }
  return warnings;
}

/**
 * What `--check` shows: every variable by name (all set, or the handler would not exist), each
 * client with its roles, permissions, tenant and keys (variable, expiry, age), and the warnings.
 * Never a key, never a digest.
 */
export function describeKeys(
  keys: readonly KeyFacts[],
  options: { rotationDays: number; now: number; permissionsOf: PermissionResolver },
): HandlerDescription {
  const { rotationDays, now, permissionsOf } = options;
  const clients = new Map<
    string,
    { name: string; roles: readonly string[]; permissions: string[]; tenant_id: string | null; keys: object[] }
  >();
  for (const key of keys) {
    let client = clients.get(key.name);
    if (client === undefined) {
      const permissions = permissionsOf(key.roles, []);
      client = { name: key.name, roles: key.roles, permissions, tenant_id: key.tenantId, keys: [] };
      clients.set(key.name, client);
    }
    client.keys.push({
      entry: key.path,
      [key.source]: key.variable,
      expires: key.expires,
      expired: isExpired(key, now),
      created: key.created,
      rotation_due: isRotationDue(key, rotationDays, now),
    });
  }
  return {
    key_material: Object.fromEntries(keys.map((key) => [key.variable, 'set'])),
    clients: [...clients.values()],
    warnings: keyWarnings(keys, rotationDays, now),
  };
}

/** Logs {@link keyWarnings} once, at start-up. */
export function warnAboutKeys(keys: readonly KeyFacts[], rotationDays: number, now: number, logger: Logger): void {
  for (const warning of keyWarnings(keys, rotationDays, now)) logger.warn(warning);
}

/**
 * The start-up line's part: the variable of the spec's single key, or how many keys and clients
 * `keys` configures (never thousands of variable names on one line). Never a key.
 */
export function summarizeKeys(
  keys: readonly KeyFacts[],
  lists: { readonly keys: readonly unknown[] | null; readonly keysFile: string | null },
): string {
  if (lists.keys === null) {
    const [only] = keys as [KeyFacts];
    return `${only.source === 'env_var' ? 'environment variable' : 'file'} ${only.variable}`;
  }
  const clients = new Set(keys.map((key) => key.name)).size;
  const where = [lists.keys.length > 0 && 'auth.api_keys.keys', lists.keysFile !== null && 'auth.api_keys.keys_file'];
  return `${where.filter(Boolean).join(' and ')} (${keys.length} key${keys.length === 1 ? '' : 's'} of ${clients} client${clients === 1 ? '' : 's'})`;
}
