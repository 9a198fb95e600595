import {
  OAUTH2_AUTH_METHODS,
  type AuthConfig,
  type ClaimsConfig,
  type HandlerDeps,
  type OAuth2AuthMethod,
  type SenderConstraintConfig,
} from '@authlayer/core';
import {
  claimsSchema,
  envVarName,
  filePath,
  intRange,
  keySetUrl,
  assertSectionRules,
  modeSectionOf,
  redisUrl,
  sectionSchema,
  senderConstraintFields,
  text,
  toClaimsConfig,
  toSenderConstraintConfig,
  withResourceAudience,
  type SectionIssue,
} from '@authlayer/core/internal';
import { z } from 'zod';

/** The key of this mode's section under `auth`. */
export const section = 'oauth2';

/** The spec's defaults of `auth.oauth2`. */
const DEFAULT_SECTION = Object.freeze({
  discovery: false,
  clientSecretEnv: 'OAUTH2_CLIENT_SECRET',
  authMethod: 'client_secret_basic' as OAuth2AuthMethod,
  cacheSeconds: 60,
  cacheMaxSeconds: 3600,
  timeoutMs: 5000,
  timeoutMaxMs: 60_000,
});

/** `auth.oauth2` as written: where and how tokens are introspected (RFC 7662). */
export const oauth2Schema = z
  .strictObject({
    introspection_url: keySetUrl.nullable().default(null),
    discovery: z.boolean().default(DEFAULT_SECTION.discovery),
    issuer: text.nullable().default(null),
    audience: text.nullable().default(null),
    client_id: text.nullable().default(null),
    client_secret_env: envVarName.default(DEFAULT_SECTION.clientSecretEnv),
    // When set, the client secret is read from this file, and client_secret_env is not read.
    client_secret_file: filePath.nullable().default(null),
    auth_method: z.enum(OAUTH2_AUTH_METHODS).default(DEFAULT_SECTION.authMethod),
    cache_seconds: intRange(0, DEFAULT_SECTION.cacheMaxSeconds).default(DEFAULT_SECTION.cacheSeconds),
    timeout_ms: intRange(1, DEFAULT_SECTION.timeoutMaxMs).default(DEFAULT_SECTION.timeoutMs),
    // Active answers shared by every replica, for cache_seconds as the local cache.
    cache_store: redisUrl.nullable().default(null),
    claims: claimsSchema.nullable().default(null),
    // The introspection answer's `cnf` (RFC 7662 §2.2, RFC 9449 §6.2, RFC 8705 §3.2) binds the token.
    ...senderConstraintFields,
  })
  .prefault({});

/** `auth.oauth2`, with every default filled in (RFC 7662 token introspection). */
export interface OAuth2Config extends SenderConstraintConfig {
  /** The introspection endpoint; `null` when it comes from the issuer's metadata (`discovery`). */
  readonly introspectionUrl: string | null;
  /** Read `introspection_endpoint` from `<issuer>/.well-known/openid-configuration`. Default `false`. */
  readonly discovery: boolean;
  /** When set, the answer's `iss` must equal it (and discovery's document must name it). */
  readonly issuer: string | null;
  /** When set, the answer's `aud` (a string, or a list of which one entry) must equal it. */
  readonly audience: string | null;
  /** `resource.audience_strict`: every `aud` entry must name `audience` (see `JwtConfig`). */
  readonly audienceStrict?: boolean;
  /** This API's client id at the provider; required in oauth2 mode. */
  readonly clientId: string | null;
  /** The variable holding the client secret. Default `OAUTH2_CLIENT_SECRET`. */
  readonly clientSecretEnv: string;
  /** `client_secret_file`: the file holding the client secret, in place of the variable. Default `null`. */
  readonly clientSecretFile: string | null;
  /** Default `client_secret_basic`. */
  readonly authMethod: OAuth2AuthMethod;
  /** How long an active answer is reused, never past its `exp`; 0 = never. Default 60, at most 3600. */
  readonly cacheSeconds: number;
  /** How long one introspection request may take. Default 5000, 1 to 60000. */
  readonly timeoutMs: number;
  /**
   * A Redis URL where active answers are shared by every replica (keyed by a digest of the token,
   * for `cache_seconds`, never past `exp`); `null` (default): each process keeps its own.
   */
  readonly cacheStore: string | null;
  readonly claims: ClaimsConfig;
}

/** The YAML's `auth.oauth2` in camelCase. */
function toOAuth2Config(raw: z.output<typeof oauth2Schema>): OAuth2Config {
  return {
    introspectionUrl: raw.introspection_url,
    discovery: raw.discovery,
    issuer: raw.issuer,
    audience: raw.audience,
    clientId: raw.client_id,
    clientSecretEnv: raw.client_secret_env,
    clientSecretFile: raw.client_secret_file,
    authMethod: raw.auth_method,
    cacheSeconds: raw.cache_seconds,
    timeoutMs: raw.timeout_ms,
    cacheStore: raw.cache_store,
    claims: toClaimsConfig(raw.claims),
    ...toSenderConstraintConfig(raw),
  };
}

/**
 * The rules of `auth.oauth2` that span several fields; those that only matter when oauth2
 * authenticates (an endpoint, a client id) only when `active`.
 */
function oauth2Issues(oauth2: OAuth2Config, active: boolean): SectionIssue[] {
  const issues: SectionIssue[] = [];
  const at = (message: string, field?: string): void =>
    void issues.push({ path: field === undefined ? [] : [field], message });
  if (oauth2.discovery && oauth2.issuer === null) at('discovery needs issuer', 'issuer');
  if (oauth2.discovery && oauth2.introspectionUrl !== null) at('set introspection_url or discovery, not both');
  if (oauth2.cacheStore !== null && oauth2.cacheSeconds === 0)
    at('cache_store shares cached answers: it needs cache_seconds above 0', 'cache_store');
  if (!active) return issues;
  if (!oauth2.discovery && oauth2.introspectionUrl === null)
    at('oauth2 mode needs introspection_url, or issuer with discovery: true');
  if (oauth2.clientId === null) at('oauth2 mode needs client_id', 'client_id');
  return issues;
}

/** `auth.oauth2` checked whole (fields, then the rules that hold whether or not oauth2 is listed) and converted. */
const checkedSchema = oauth2Schema
  .superRefine((raw, ctx) => {
    for (const { path, message } of oauth2Issues(toOAuth2Config(raw), false))
      ctx.addIssue({ code: 'custom', path: [...path], message });
  })
  .transform(toOAuth2Config);

/**
 * The section's schema as the engine's loader takes it (a Standard Schema): its value is the
 * handler's `deps.section`, an {@link OAuth2Config}.
 */
export const configSchema = sectionSchema(checkedSchema);

/**
 * This mode's settings: the checked section (see `modeSectionOf`), with the rules that hold when
 * oauth2 authenticates (an endpoint, a client id) and the resource's audience where none is written.
 *
 * @throws ConfigError (from `@authlayer/core`) naming every broken rule at `auth.oauth2.<path>`
 */
export function oauth2Of(config: AuthConfig, deps: Pick<HandlerDeps, 'section'>): OAuth2Config {
  const settings = modeSectionOf(config, deps, section, configSchema);
  assertSectionRules(section, oauth2Issues(settings, true));
  return withResourceAudience(settings, config.resource);
}

/** The section as written, for its JSON Schema (`config.section.schema.json`). */
export const writtenSchema = oauth2Schema;
