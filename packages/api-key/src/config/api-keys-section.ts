import { ConfigError, DEFAULTS, type AuthConfig, type HandlerDeps } from '@authlayer/core';
import {
  envVarName,
  filePath,
  modeSectionOf,
  NAME_MAX_LENGTH,
  sectionPathOf,
  sectionSchema,
} from '@authlayer/core/internal';
import { z } from 'zod';

/** The key of this mode's section under `auth`. */
export const section = 'api_keys';

/** One broken rule that spans fields, at a path inside the section. */
interface SectionIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** The spec's defaults of the section. */
const DEFAULT_SECTION = Object.freeze({
  envVar: 'SERVICE_API_KEY',
  header: 'X-API-Key',
  allowBearer: true,
  enabled: true,
  rotationDays: 30,
});

// RFC 9110 §5.6.2: a field name is a token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PREFIX = /^[A-Za-z][A-Za-z0-9_]*$/;
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
  // The file twins: the key itself, or its hex SHA-256, read from a file (a mounted secret).
  key_file: filePath.optional(),
  hash_file: filePath.optional(),
  roles: z.array(z.string().min(1, 'must not be empty')).optional(),
  tenant_id: z.string().min(1, 'must not be empty').nullable().optional(),
  expires: date.nullable().default(null),
  created: date.nullable().default(null),
  // The client's own limits (entries of one name are one client): over either → 429.
  requests_per_minute: z.int().min(1, 'must be at least 1').optional(),
  quota: z
    .strictObject({
      requests: z.int().min(1, 'must be at least 1'),
      per: z.enum(['day', 'month']),
    })
    .nullable()
    .optional(),
});

/** `<prefix>` of a checksummed key: a letter, then letters, digits and `_`, at most 32 characters. */
const KEY_PREFIX = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/** `auth.api_keys` as written. */
const apiKeysSchema = z
  .strictObject({
    // No .default(): `keys` excludes an env_var the user wrote, so "not written" must stay visible.
    // The converter fills the default; meta keeps it in the JSON Schema.
    env_var: envVarName.optional().meta({ default: DEFAULT_SECTION.envVar }),
    // The spec's single key read from a file instead of env_var.
    key_file: filePath.optional(),
    prefix: z
      .string()
      .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
      .regex(PREFIX, 'must be a letter, then letters, digits and _ (it names the variable <PREFIX>_API_KEY)')
      .nullable()
      .default(null),
    header: z
      .string()
      .min(1, 'must not be empty')
      .max(DEFAULTS.headerMaxLength, `must be at most ${DEFAULTS.headerMaxLength} characters`)
      .regex(HEADER_NAME, 'must be a valid HTTP header name')
      // The Authorization header carries `Bearer <key>`, never a bare key: that is what allow_bearer is for.
      .refine((name) => name.toLowerCase() !== 'authorization', 'must not be Authorization (use allow_bearer)')
      .default(DEFAULT_SECTION.header),
    allow_bearer: z.boolean().default(DEFAULT_SECTION.allowBearer),
    enabled: z.boolean().default(DEFAULT_SECTION.enabled),
    rotation_days: z.int().min(1, 'must be at least 1').default(DEFAULT_SECTION.rotationDays),
    // checksummed: `<prefix>_<32 base62>_<checksum>`; anything else is refused before any lookup.
    format: z.enum(['any', 'checksummed']).default('any'),
    // The prefixes a checksummed key may have; default: those of the keys read from env_var or
    // key_file, or, with hashed entries (whose digests do not tell a prefix), any prefix.
    key_prefixes: z
      .array(z.string().regex(KEY_PREFIX, 'must be a letter, then letters, digits and _ (at most 32 characters)'))
      .min(1, 'must list at least one prefix')
      .optional(),
    // Named keys for many clients; at least one entry when present.
    keys: z.array(apiKeyEntrySchema).min(1, 'must list at least one key').optional(),
    // A YAML list of {name, sha256, roles, tenant_id, expires, created}, read at start and on reload.
    keys_file: filePath.optional(),
  })
  .prefault({});

type RawApiKeys = z.output<typeof apiKeysSchema>;
type RawEntry = z.output<typeof apiKeyEntrySchema>;

/** `auth.api_keys`, with every default filled in. */
export interface ApiKeysConfig {
  /** Variable holding the expected key when no prefix is set. Default `SERVICE_API_KEY`. */
  readonly envVar: string;
  /** When set, the expected key is read from `<PREFIX>_API_KEY` instead. Default `null`. */
  readonly prefix: string | null;
  /** Header carrying the key. Default `X-API-Key`; 1 to 64 characters. */
  readonly header: string;
  /** Also accept `Authorization: Bearer <key>`. Default `true`. */
  readonly allowBearer: boolean;
  /** When false, API key mode authenticates nobody (and says so loudly). Default `true`. */
  readonly enabled: boolean;
  /** Informational only: a key whose `created` is older gets a warning. Default 30. */
  readonly rotationDays: number;
  /** `key_file`: the spec's single key read from this file instead of {@link envVar}. Default `null`. */
  readonly keyFile: string | null;
  /**
   * `keys`: named keys for many clients. `null` (the default): the spec's single key; `[]` when
   * only `keys_file` names them.
   */
  readonly keys: readonly ApiKeyEntryConfig[] | null;
  /** `keys_file`: a YAML file of hashed entries, read by the handler (start-up and reload). Default `null`. */
  readonly keysFile: string | null;
  /** `any` (default), or `checksummed`: a key must be `<prefix>_<32 base62>_<checksum>`. */
  readonly format: 'any' | 'checksummed';
  /**
   * `key_prefixes`: the prefixes a checksummed key may have; `null`: those of the keys read as
   * themselves, or any prefix when an entry is hashed (`hash_env`, `hash_file`, `keys_file`).
   */
  readonly keyPrefixes: readonly string[] | null;
}

/** A client's quota: so many requests per UTC calendar day or month. */
export interface ApiKeyQuota {
  readonly requests: number;
  readonly per: 'day' | 'month';
}

/**
 * One entry of `auth.api_keys.keys`. Entries of one name are one client (several live keys for
 * rotation) and all carry that client's `roles` and `tenantId`.
 */
export interface ApiKeyEntryConfig {
  /** The client; becomes `userId`. */
  readonly name: string;
  /** Variable holding the key itself; exactly one of `envVar`, `hashEnv`, `keyFile`, `hashFile` is set. */
  readonly envVar: string | null;
  /** Variable holding the hex SHA-256 of the key. */
  readonly hashEnv: string | null;
  /** File holding the key itself. */
  readonly keyFile: string | null;
  /** File holding the hex SHA-256 of the key. */
  readonly hashFile: string | null;
  /** Roles of the client; permissions come from the top-level `roles`. */
  readonly roles: readonly string[];
  readonly tenantId: string | null;
  /** `YYYY-MM-DD`: from that day (UTC) on, the key is refused. */
  readonly expires: string | null;
  /** `YYYY-MM-DD`: when the key was made, for the `rotation_days` warning. */
  readonly created: string | null;
  /** The client's own `requests_per_minute` (in place of `rate_limit`'s); `null`: the common one. */
  readonly requestsPerMinute: number | null;
  /** The client's quota; `null`: none. */
  readonly quota: ApiKeyQuota | null;
}

/** The YAML's `auth.api_keys` in camelCase, with every default filled in. */
function toApiKeysConfig(raw: RawApiKeys): ApiKeysConfig {
  return {
    envVar: raw.env_var ?? DEFAULT_SECTION.envVar,
    prefix: raw.prefix,
    header: raw.header,
    allowBearer: raw.allow_bearer,
    enabled: raw.enabled,
    rotationDays: raw.rotation_days,
    keyFile: raw.key_file ?? null,
    keys: toApiKeyEntries(raw.keys) ?? (raw.keys_file === undefined ? null : []),
    keysFile: raw.keys_file ?? null,
    format: raw.format,
    keyPrefixes: raw.key_prefixes ?? null,
  };
}

/**
 * The variable holding the spec's single key: `env_var`, or `<PREFIX>_API_KEY` when `prefix` is
 * set (prefix `prod` reads `PROD_API_KEY`).
 */
export function apiKeyVariable({ prefix, envVar }: ApiKeysConfig): string {
  return prefix === null ? envVar : `${prefix.toUpperCase()}_API_KEY`;
}

/**
 * The rules that span fields: `keys` excludes `env_var` and `prefix`; each entry has exactly one
 * of `env_var` and `hash_env`; entries of one name are one client, so they may not disagree on
 * `roles` or `tenant_id` (one entry may say them for all).
 */
function apiKeysIssues(apiKeys: RawApiKeys): SectionIssue[] {
  const issues: SectionIssue[] = [];
  if (apiKeys.key_file !== undefined && (apiKeys.env_var !== undefined || apiKeys.prefix !== null)) {
    const other = apiKeys.env_var !== undefined ? 'env_var' : 'prefix';
    issues.push({ path: ['key_file'], message: `set key_file or ${other}, not both` });
  }
  const lists = (['keys', 'keys_file'] as const).filter((field) => apiKeys[field] !== undefined);
  const single = [
    apiKeys.env_var !== undefined && 'env_var',
    apiKeys.prefix !== null && 'prefix',
    apiKeys.key_file !== undefined && 'key_file',
  ].filter(Boolean);
  if (lists.length > 0 && single.length > 0) {
    const fields = single.map((field) => `auth.api_keys.${String(field)}`).join(' and ');
    issues.push({
      path: [lists[0]!],
      message: `excludes ${fields} (each key names its own variable or file)`,
    });
  }
  const { keys } = apiKeys;
  if (keys === undefined) return issues;
  const at = (index: number, ...rest: string[]) => ['keys', index, ...rest];
  const first = new Map<string, number>();
  keys.forEach((entry, index) => {
    if (SOURCES.filter((source) => entry[source] !== undefined).length !== 1) {
      issues.push({ path: at(index), message: 'needs exactly one of env_var, hash_env, key_file and hash_file' });
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
    for (const field of ['requests_per_minute', 'quota'] as const) {
      const [mine, theirs] = [entry[field], other[field]];
      if (mine != null && theirs != null && JSON.stringify(mine) !== JSON.stringify(theirs)) {
        issues.push({
          path: at(index, field),
          message: `differs from keys[${seen}].${field} (entries of one name are one client)`,
        });
      }
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
function toApiKeyEntries(keys: readonly RawEntry[] | undefined): ApiKeyEntryConfig[] | null {
  if (keys === undefined) return null;
  const roles = new Map<string, readonly string[]>();
  const tenants = new Map<string, string>();
  const perMinute = new Map<string, number>();
  const quotas = new Map<string, ApiKeyQuota>();
  for (const entry of keys) {
    if (entry.roles !== undefined && !roles.has(entry.name)) roles.set(entry.name, [...new Set(entry.roles)]);
    if (entry.tenant_id != null && !tenants.has(entry.name)) tenants.set(entry.name, entry.tenant_id);
    if (entry.requests_per_minute !== undefined && !perMinute.has(entry.name))
      perMinute.set(entry.name, entry.requests_per_minute);
    if (entry.quota != null && !quotas.has(entry.name)) quotas.set(entry.name, { ...entry.quota });
  }
  return keys.map((entry) => ({
    name: entry.name,
    envVar: entry.env_var ?? null,
    hashEnv: entry.hash_env ?? null,
    keyFile: entry.key_file ?? null,
    hashFile: entry.hash_file ?? null,
    roles: [...(roles.get(entry.name) ?? [])],
    tenantId: tenants.get(entry.name) ?? null,
    expires: entry.expires,
    created: entry.created,
    requestsPerMinute: perMinute.get(entry.name) ?? null,
    quota: quotas.get(entry.name) ?? null,
  }));
}

const SOURCES = ['env_var', 'hash_env', 'key_file', 'hash_file'] as const;

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((item) => right.has(item));
}

/** `auth.api_keys` checked whole (fields, then the rules that span them) and converted once. */
const checkedSchema = apiKeysSchema
  .superRefine((raw, ctx) => {
    for (const { path, message } of apiKeysIssues(raw)) ctx.addIssue({ code: 'custom', path: [...path], message });
  })
  .transform(toApiKeysConfig);

/**
 * The section's schema as the engine's loader takes it (a Standard Schema): its value is the
 * handler's `deps.section`, an {@link ApiKeysConfig}.
 */
export const configSchema = sectionSchema(checkedSchema);

/**
 * This mode's settings: `deps.section` as the engine's loader checked it, or, for a program that
 * calls the handler itself, `auth.api_keys` of the parsed config checked here, with the same
 * messages. A client's own limit needs the top-level `rate_limit`, which only the config has.
 *
 * @throws ConfigError naming every broken field at `auth.api_keys.<path>`
 */
export function apiKeysOf(config: AuthConfig, deps: Pick<HandlerDeps, 'section'>): ApiKeysConfig {
  const settings = modeSectionOf(config, deps, section, configSchema);
  const issues = clientLimitIssues(settings, config.rateLimit !== null);
  if (issues.length > 0) throw new ConfigError(issues);
  return settings;
}

/** A client's own limits are counted on `rate_limit`'s store: without one they would count nothing. */
function clientLimitIssues({ keys }: ApiKeysConfig, rateLimited: boolean) {
  if (rateLimited || keys === null) return [];
  return keys.flatMap((entry, index) =>
    [entry.requestsPerMinute !== null && 'requests_per_minute', entry.quota !== null && 'quota']
      .filter((field) => field !== false)
      .map((field) => ({
        path: sectionPathOf(section, ['keys', index, field]),
        message: "needs the top-level rate_limit (its store counts the client's requests)",
      })),
  );
}

/** The section as written, for its JSON Schema (`config.section.schema.json`). */
export const writtenSchema = apiKeysSchema;
