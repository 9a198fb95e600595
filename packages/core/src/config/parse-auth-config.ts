import type { AuthConfig } from './auth-config.js';
import type { AuthMode } from './defaults.js';
import { compileRouteKey, toAccessConfig, type AccessValue } from './access-schema.js';
import { ConfigError, shownInError, type ConfigIssue } from './config-error.js';
import { configSchema, type RawConfigOutput } from './config-schema.js';
import { describeIssues, formatPath } from './config-issues.js';
import { toForwardAuthConfig } from './sections/forward-auth.js';
import { toMcpConfig } from './sections/mcp.js';
import { toResourceConfig } from './sections/resource.js';
import { toScopesConfig } from './sections/scopes.js';
import { toRevocationConfig } from './sections/revocation.js';
import { toTlsConfig } from './sections/tls.js';
import { toRateLimitConfig } from './sections/operations.js';
import { toRolesConfig } from './sections/roles.js';
import { knownFields } from './suggest-field.js';
import { deepFreeze } from './deep-freeze.js';

const PARSED = Symbol.for('authlayer.config');

/**
 * Checks a config given as the YAML's shape (`{ auth: {...}, roles: [...] }`), fills every
 * default, and converts it once to camelCase. Unknown fields are refused.
 *
 * @throws ConfigError naming the path of every broken rule, for example
 *   `auth.api_keys.header: must be at most 64 characters; auth.jwt.leeway_seconds: must be 0 to 300`
 * @example
 * const config = parseAuthConfig({ auth: { mode: 'api_key', api_keys: { env_var: 'MY_KEY' } } });
 * config.modeSections?.api_keys; // { env_var: 'MY_KEY' }, checked by @authlayer/api-key when it loads
 */
export function parseAuthConfig(raw: unknown): AuthConfig {
  const { known, modeSections } = splitModeSections(raw);
  const result = configSchema.safeParse(known, { reportInput: true });
  if (!result.success) {
    const issues = describeIssues(configSchema, result.error.issues);
    throw new ConfigError(issues.map(({ path, message }) => ({ path: formatPath(path), message })));
  }
  return toAuthConfig(result.data, modeSections);
}

/**
 * The `auth` keys core does not know are mode packages' sections (`auth.api_keys`, `auth.hmac`):
 * kept as written, for each package to check with its own schema when the engine loads it. Core
 * names no mode's section; a key that no mode package reads is refused then, as an unknown field.
 */
function splitModeSections(raw: unknown): { known: unknown; modeSections: Record<string, unknown> } {
  const auth = (raw as { auth?: unknown } | null)?.auth;
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth)) return { known: raw, modeSections: {} };
  const coreKeys = knownFields(configSchema, ['auth']);
  const entries = Object.entries(auth);
  const modeSections = Object.fromEntries(entries.filter(([key]) => !coreKeys.includes(key)));
  const known = { ...(raw as object), auth: Object.fromEntries(entries.filter(([key]) => coreKeys.includes(key))) };
  return { known, modeSections: structuredClone(modeSections) };
}

// A side table, not a property: the config is frozen once parsed.
const sources = new WeakMap<AuthConfig, string>();

/**
 * The absolute path of the file a config was read from (by `loadConfig`), or `null` for a config
 * given as an object: what `auth.reload()` reads again, and what `reload.watch` watches.
 */
export function configSourceOf(config: AuthConfig): string | null {
  return sources.get(config) ?? null;
}

/** Marks `config` as read from `path` (see {@link configSourceOf}); for `loadConfig`. */
export function markConfigSource(config: AuthConfig, path: string): AuthConfig {
  sources.set(config, path);
  return config;
}

/** True for a config that `parseAuthConfig` made (so it need not be checked again). */
export function isParsedAuthConfig(value: unknown): value is AuthConfig {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PARSED] === true;
}

function toAuthConfig(
  {
    auth,
    roles,
    rate_limit: rateLimit,
    metrics,
    reload,
    access,
    forward_auth: forwardAuth,
    resource,
    mcp,
    scopes,
    revocation,
    tls,
  }: RawConfigOutput,
  modeSections: Readonly<Record<string, unknown>> = {},
): AuthConfig {
  const modes = [...new Set([auth.mode].flat())];
  const resourceConfig = toResourceConfig(resource);
  const config: AuthConfig = {
    mode: modes[0] as AuthMode,
    modes,
    fallback: auth.fallback,
    roles: toRolesConfig(roles),
    rateLimit: toRateLimitConfig(rateLimit),
    metrics,
    reload: { watch: reload.watch },
    ...toAccessConfig(access),
    forwardAuth: toForwardAuthConfig(forwardAuth),
    resource: resourceConfig,
    mcp: toMcpConfig(mcp, resourceConfig?.identifier ?? null),
    // Present only when written: every other config keeps its shape.
    ...(scopes === null ? {} : { scopes: toScopesConfig(scopes) }),
    revocation: toRevocationConfig(revocation),
    tls: toTlsConfig(tls),
    // Present only when a mode section is written (`auth.api_keys`): every other config keeps its shape.
    ...(Object.keys(modeSections).length > 0 ? { modeSections } : {}),
  };
  Object.defineProperty(config, PARSED, { value: true });
  return deepFreeze(config);
}

/**
 * The config with `entries` added to its `access` table where it has no entry of the same key (the
 * config's own entries win): for an app that brings routes of its own (the reference service's
 * `/healthz`), so that the file keeps the last word.
 *
 * @throws ConfigError naming a key of `entries` that is not `"METHOD /pattern"`
 */
export function withAccessDefaults(config: AuthConfig, entries: Readonly<Record<string, AccessValue>>): AuthConfig {
  const issues: ConfigIssue[] = [];
  for (const key of Object.keys(entries)) {
    try {
      compileRouteKey(key);
    } catch (error) {
      issues.push({ path: `access.${shownInError(key)}`, message: (error as Error).message });
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const extended: AuthConfig = {
    ...config,
    access: { ...entries, ...config.access },
  };
  Object.defineProperty(extended, PARSED, { value: true });
  const source = configSourceOf(config);
  if (source !== null) sources.set(extended, source);
  return deepFreeze(extended);
}
