import {
  redactUrl,
  type AccessRequirement,
  type AccessValue,
  type AuthConfig,
  type HandlerDescription,
} from '@authlayer/core';
import { dirname, resolve } from 'node:path';
import type { AuthMiddlewareOptions } from '@authlayer/express';
import { createApp, describeAuth } from './app.js';
import { checkedSections } from './checked-sections.js';
import { readTlsOptions } from './tls-server.js';

/** What `--check` prints: the resolved settings in the YAML's own (snake_case) shape. */
export interface CheckReport {
  readonly config: string;
  /** The handler that would run: the mode, or `none` for the no-auth fallback (a list for several modes, as `/healthz`). */
  readonly handler: string | readonly string[];
  /** The environment variables holding key material, by NAME, with whether they are set; never a value. */
  readonly key_material: Readonly<Record<string, 'set' | 'unset'>>;
  /**
   * What the active handler says about itself beyond its variables (API keys: clients, expiry dates,
   * rotation warnings; JWT: each issuer, its key source and key state); per mode when several are
   * listed. Never a secret.
   */
  readonly handler_details: Readonly<Record<string, unknown>>;
  readonly auth: unknown;
  readonly roles: unknown;
  /** The top-level `rate_limit` (`null`: off), with the user and password of a Redis URL hidden. */
  readonly rate_limit: unknown;
  readonly metrics: boolean;
  /** The top-level `reload`. */
  readonly reload: { readonly watch: boolean };
  /** The `access` section as written (`"METHOD /path"` → permissions, scopes, roles). */
  readonly access: unknown;
  /** The top-level `forward_auth`, with the default identity headers filled in. */
  readonly forward_auth: unknown;
  /** The top-level `resource` (RFC 9728), or `null`. */
  readonly resource: unknown;
  /** The top-level `mcp` (`endpoint`, `max_body_bytes`, `filter_lists`, ...), or `null`. */
  readonly mcp: unknown;
  /** The top-level `revocation` (`null`: no list), its store's user and password hidden. */
  readonly revocation: unknown;
  /** The top-level `tls` (file paths, the client certificate header), or `null`. */
  readonly tls: unknown;
}

/**
 * `main.js --check`: builds the middleware exactly as a start would (so missing key material and a
 * missing mode package are reported the same way), then describes the resolved config with every
 * default filled in. The config holds variable names, not secrets; the report adds no value of
 * any variable, and hides the user, password and query values of every `*_url` (`redactUrl`).
 *
 * @throws ConfigError when the key material is missing; Error when the mode package is broken
 */
export async function checkConfig(
  path: string,
  config: AuthConfig,
  options: AuthMiddlewareOptions,
): Promise<CheckReport> {
  // The whole app, as a start builds it: the access table is checked against its routes too.
  const { auth } = await createApp(config, options);
  await auth.close();
  // The TLS files are read as a start reads them: a missing one fails --check too.
  await readTlsOptions(config.tls, dirname(resolve(path)));
  const { keyMaterial, details } = describeHandlers(config, auth.describe());
  const {
    roles,
    rateLimit,
    metrics,
    reload,
    access,
    accessPolicy,
    forwardAuth,
    resource,
    mcp,
    revocation,
    tls,
    modes,
    modeSections,
    ...rest
  } = config;
  // Each mode package's section as the package read it, beside core's sections.
  const sections = await checkedSections({ modes, modeSections }, toSnakeCase, options.importModule);
  const resolved = redactUrls({ ...(toSnakeCase(rest) as object), ...sections }) as { mode: unknown };
  resolved.mode = modes.length > 1 ? modes : config.mode;
  const limits =
    rateLimit === null
      ? null
      : {
          ...(toSnakeCase(rateLimit) as object),
          store: rateLimit.store === 'memory' ? 'memory' : redactUrl(rateLimit.store),
        };
  return {
    config: resolve(path),
    handler: describeAuth(auth).handler,
    key_material: keyMaterial,
    handler_details: details,
    auth: resolved,
    roles: toSnakeCase(roles),
    rate_limit: limits,
    metrics,
    reload: { watch: reload.watch },
    // As the YAML writes it: the policy beside the routes, each rule in snake_case.
    access: {
      default: accessPolicy.default ?? 'authenticated',
      report_only: accessPolicy.reportOnly,
      log: accessPolicy.log ?? 'none',
      ...Object.fromEntries(Object.entries(access).map(([key, value]) => [key, ruleAsWritten(value)])),
    },
    forward_auth: {
      enabled: forwardAuth.enabled,
      proxy: forwardAuth.proxy,
      listen: forwardAuth.listen === null ? null : `${forwardAuth.listen.host}:${forwardAuth.listen.port}`,
      identity_headers: forwardAuth.identityHeaders,
    },
    resource,
    mcp: toSnakeCase(mcp),
    revocation:
      revocation === null
        ? null
        : { store: typeof revocation.store === 'string' ? redactUrl(revocation.store) : revocation.store },
    tls: toSnakeCase(tls),
  };
}

type VariableStates = Record<string, 'set' | 'unset'>;

/**
 * Splits what the handler says about itself (one description, or one per mode with several) into
 * the variables it reads (`key_material`) and the rest. Each mode package says which variables it
 * reads; no mode is named here. A mode whose package is missing says nothing.
 */
function describeHandlers(config: AuthConfig, described: HandlerDescription) {
  const several = config.modes.length > 1;
  const perMode = (several ? described : { [config.mode]: described }) as Record<
    string,
    HandlerDescription | undefined
  >;
  const keyMaterial: VariableStates = {};
  const details: Record<string, unknown> = {};
  for (const mode of config.modes) {
    const { key_material: variables, ...rest } = perMode[mode] ?? {};
    if (isVariableStates(variables)) Object.assign(keyMaterial, variables);
    if (several) details[mode] = rest;
    else Object.assign(details, rest);
  }
  return { keyMaterial, details };
}

function isVariableStates(value: unknown): value is VariableStates {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.values(value).every((state) => state === 'set' || state === 'unset')
  );
}

/** Every `*_url` and `*_store` of the config with its user info and query values hidden (`redactUrl`), at any depth. */
function redactUrls(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return /_(url|store)$/.test(key) ? redactUrl(value) : value;
  if (Array.isArray(value)) return value.map((item) => redactUrls(item));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([name, child]) => [name, redactUrls(child, name)]));
}

/**
 * An `access` value as the YAML writes it: fields in snake_case, claim paths and an MCP key's
 * `params` paths (`arguments.ownerId`, `{tenant}`) exactly as written.
 */
function ruleAsWritten(value: AccessValue): unknown {
  if (typeof value === 'string') return value;
  const written = ({ claims, ...rest }: AccessRequirement) => ({
    ...(toSnakeCase(rest) as object),
    ...(claims === undefined ? {} : { claims }),
  });
  const { params, ...rule } = value;
  return { ...written(rule), any: value.any.map(written), ...(params === undefined ? {} : { params }) };
}

/** camelCase keys back to the YAML's snake_case (`allowBearer` → `allow_bearer`). */
function toSnakeCase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toSnakeCase);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      toSnakeCase(child),
    ]),
  );
}
