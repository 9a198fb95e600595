import {
  DEFAULTS,
  HMAC_ALGORITHMS,
  JWT_ALGORITHMS,
  type AuthConfig,
  type ClaimsConfig,
  type HandlerDeps,
  type JwtAlgorithm,
  type SenderConstraintConfig,
} from '@authlayer/core';
import {
  claimPath,
  claimsSchema,
  envVarName,
  filePath,
  intRange,
  keySetUrl,
  assertSectionRules,
  modeSectionOf,
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
export const section = 'jwt';

/** The spec's defaults of `auth.jwt`. */
const DEFAULT_SECTION = Object.freeze({
  algorithms: Object.freeze(['RS256'] as JwtAlgorithm[]),
  leewaySeconds: 30,
  discovery: false,
  staleKeysSeconds: 3600,
  trustRoles: true,
});

// RFC 6265 §4.1.1: a cookie name is an RFC 2616 token.
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// RFC 7515 §4.1.9: `typ` is a media type, with or without its `application/` prefix.
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)?$/;

const jwksUrl = keySetUrl;
const algorithms = z.array(z.enum(JWT_ALGORITHMS)).min(1, 'must list at least one algorithm');
const leeway = intRange(0, DEFAULTS.leewayMaxSeconds);
const staleKeys = intRange(0, DEFAULTS.staleKeysMaxSeconds);
const requiredClaims = z.array(claimPath);
const tokenType = z.string().regex(MEDIA_TYPE, 'must be a media type such as at+jwt or application/at+jwt');

/**
 * One entry of `auth.jwt.providers`. `issuer` is required and picks the entry; the key source
 * (`jwks_url`, `public_key_env` or `discovery`) is the entry's own; every other field left out
 * is taken from `auth.jwt`.
 */
const providerSchema = z.strictObject({
  issuer: text,
  jwks_url: jwksUrl.optional(),
  public_key_env: envVarName.optional(),
  public_key_file: filePath.optional(),
  discovery: z.boolean().optional(),
  audience: text.nullable().optional(),
  algorithms: algorithms.optional(),
  leeway_seconds: leeway.optional(),
  claims: claimsSchema.nullable().optional(),
  required_claims: requiredClaims.optional(),
  token_type: tokenType.nullable().optional(),
  stale_keys_seconds: staleKeys.optional(),
  trust_roles: z.boolean().optional(),
});

/** `auth.jwt` as written. */
export const jwtSchema = z
  .strictObject({
    jwks_url: jwksUrl.nullable().default(null),
    public_key_env: envVarName.nullable().default(null),
    // The twin of public_key_env: the PEM public key or HMAC secret read from a file.
    public_key_file: filePath.nullable().default(null),
    issuer: text.nullable().default(null),
    audience: text.nullable().default(null),
    algorithms: algorithms.default([...DEFAULT_SECTION.algorithms]),
    leeway_seconds: leeway.default(DEFAULT_SECTION.leewaySeconds),
    claims: claimsSchema.nullable().default(null),
    discovery: z.boolean().default(DEFAULT_SECTION.discovery),
    stale_keys_seconds: staleKeys.default(DEFAULT_SECTION.staleKeysSeconds),
    required_claims: requiredClaims.default([]),
    token_type: tokenType.nullable().default(null),
    cookie: z.string().regex(COOKIE_NAME, 'must be a cookie name (RFC 6265 token)').nullable().default(null),
    trust_roles: z.boolean().default(DEFAULT_SECTION.trustRoles),
    providers: z.array(providerSchema).min(1, 'must list at least one provider').nullable().default(null),
    // For every issuer alike: a proof or a certificate is the client's, not the issuer's.
    ...senderConstraintFields,
  })
  .prefault({});

type RawJwt = z.output<typeof jwtSchema>;
type RawProvider = NonNullable<RawJwt['providers']>[number];

/**
 * How tokens of one issuer are checked: `auth.jwt` itself, or one entry of `auth.jwt.providers`
 * (whose fields left out are taken from `auth.jwt`, except the key source).
 */
export interface JwtProviderConfig {
  readonly jwksUrl: string | null;
  readonly publicKeyEnv: string | null;
  /** `public_key_file`: the file holding what `public_key_env`'s variable would. */
  readonly publicKeyFile: string | null;
  /** `jwks_uri` from `<issuer>/.well-known/openid-configuration`. Default `false`. */
  readonly discovery: boolean;
  readonly issuer: string | null;
  readonly audience: string | null;
  /**
   * `resource.audience_strict` (set from the `resource` section, never written here): every `aud`
   * entry must name `audience`. Absent: one entry naming it is enough (RFC 8707).
   */
  readonly audienceStrict?: boolean;
  readonly algorithms: readonly JwtAlgorithm[];
  readonly leewaySeconds: number;
  readonly claims: ClaimsConfig;
  /** Claims (names or dot paths) that must be present. Default none. */
  readonly requiredClaims: readonly string[];
  /** The header `typ` a token must have (RFC 9068 `at+jwt`). Default `null`: any. */
  readonly tokenType: string | null;
  /** How long past its age a remote key set keeps serving when a refresh fails. Default 3600. */
  readonly staleKeysSeconds: number;
  /**
   * Whether the top-level `roles` section gives this issuer's roles their permissions. Default
   * `true`; `false` for an issuer (a partner's) that chooses role names the roles section must not trust.
   */
  readonly trustRoles: boolean;
}

/** `auth.jwt`, with every default filled in. */
export interface JwtConfig extends JwtProviderConfig, SenderConstraintConfig {
  /** A cookie read when there is no Authorization header. Default `null`. */
  readonly cookie: string | null;
  /** Several issuers, each picked by the token's `iss`. Empty when `auth.jwt` is the only one. */
  readonly providers: readonly JwtProviderConfig[];
}

/**
 * `auth.jwt` as the schema read it, in camelCase. Each provider takes what it leaves out from
 * `auth.jwt`, except its key source, which is always its own.
 */
function toJwtConfig(jwt: RawJwt): JwtConfig {
  const own = toProvider(jwt);
  const providers = (jwt.providers ?? []).map((entry) =>
    toProvider({
      ...jwt,
      jwks_url: entry.jwks_url ?? null,
      public_key_env: entry.public_key_env ?? null,
      public_key_file: entry.public_key_file ?? null,
      discovery: entry.discovery ?? false,
      ...definedFields(entry),
    }),
  );
  return { ...own, cookie: jwt.cookie, providers, ...toSenderConstraintConfig(jwt) };
}

function toProvider(jwt: Omit<RawJwt, 'providers' | 'cookie'>): JwtProviderConfig {
  return {
    jwksUrl: jwt.jwks_url,
    publicKeyEnv: jwt.public_key_env,
    publicKeyFile: jwt.public_key_file,
    discovery: jwt.discovery,
    issuer: jwt.issuer,
    audience: jwt.audience,
    algorithms: [...new Set(jwt.algorithms)],
    leewaySeconds: jwt.leeway_seconds,
    claims: toClaimsConfig(jwt.claims),
    requiredClaims: [...new Set(jwt.required_claims)],
    tokenType: jwt.token_type,
    staleKeysSeconds: jwt.stale_keys_seconds,
    trustRoles: jwt.trust_roles,
  };
}

/** The fields a provider entry sets (`claims: null` is set: every default claim). */
function definedFields(entry: RawProvider): Partial<RawProvider> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as Partial<RawProvider>;
}

type Path = (string | number)[];

/**
 * The rules of `auth.jwt` that span several fields: one key source (for `auth.jwt`, or for each
 * provider; needed only when jwt is `active`), `discovery` needs `issuer`, HMAC only with
 * `public_key_env`, unique issuers.
 */
function jwtIssues(jwt: JwtConfig, active: boolean): SectionIssue[] {
  const issues: SectionIssue[] = [];
  const at = (path: Path, message: string) => void issues.push({ path, message });
  if (jwt.providers.length === 0) {
    if (active && sourcesOf(jwt).length === 0)
      at([], 'jwt mode needs jwks_url, public_key_env, public_key_file, discovery or providers');
    checkSource(jwt, [], at);
    return issues;
  }
  const beside = {
    jwks_url: jwt.jwksUrl,
    public_key_env: jwt.publicKeyEnv,
    public_key_file: jwt.publicKeyFile,
    issuer: jwt.issuer,
  };
  for (const [field, value] of Object.entries(beside)) {
    if (value !== null) at([field], 'set it in each entry of providers, not beside them');
  }
  if (jwt.discovery) at(['discovery'], 'set it in each entry of providers, not beside them');
  const seen = new Set<string | null>();
  jwt.providers.forEach((provider, index) => {
    const path = ['providers', index];
    if (sourcesOf(provider).length === 0)
      at(path, 'each provider needs jwks_url, public_key_env, public_key_file or discovery');
    checkSource(provider, path, at);
    if (seen.has(provider.issuer)) at([...path, 'issuer'], `duplicate issuer "${String(provider.issuer)}"`);
    seen.add(provider.issuer);
  });
  return issues;
}

function sourcesOf(provider: JwtProviderConfig): string[] {
  const sources: string[] = [];
  if (provider.jwksUrl !== null) sources.push('jwks_url');
  if (provider.publicKeyEnv !== null) sources.push('public_key_env');
  if (provider.publicKeyFile !== null) sources.push('public_key_file');
  if (provider.discovery) sources.push('discovery');
  return sources;
}

function checkSource(provider: JwtProviderConfig, path: Path, at: (path: Path, message: string) => void): void {
  const sources = sourcesOf(provider);
  if (sources.length > 1)
    at(path, `set one of jwks_url, public_key_env, public_key_file and discovery, not ${sources.join(' and ')}`);
  // OpenID Connect Discovery §4: the document's URL is made from the issuer.
  if (provider.discovery && provider.issuer === null) at([...path, 'issuer'], 'discovery needs issuer');
  const hmac = provider.algorithms.filter((alg) => (HMAC_ALGORITHMS as readonly string[]).includes(alg));
  const remote = sources.find((source) => source !== 'public_key_env' && source !== 'public_key_file');
  if (remote !== undefined && hmac.length > 0) {
    at(
      [...path, 'algorithms'],
      `${hmac.join(', ')} need a shared secret through public_key_env or public_key_file, not ${remote}`,
    );
  }
}

/** `auth.jwt` checked whole (fields, then the rules that hold whether or not jwt is listed) and converted. */
const checkedSchema = jwtSchema
  .superRefine((raw, ctx) => {
    // An empty `providers` list is refused by its own schema; the rules would only restate it.
    if (raw.providers?.length === 0) return;
    for (const { path, message } of jwtIssues(toJwtConfig(raw), false))
      ctx.addIssue({ code: 'custom', path: [...path], message });
  })
  .transform(toJwtConfig);

/**
 * The section's schema as the engine's loader takes it (a Standard Schema): its value is the
 * handler's `deps.section`, a {@link JwtConfig}.
 */
export const configSchema = sectionSchema(checkedSchema);

/**
 * This mode's settings: the checked section (see `modeSectionOf`), with the rules that hold when
 * jwt authenticates (a key source) and the resource's audience where none is written.
 *
 * @throws ConfigError (from `@authlayer/core`) naming every broken rule at `auth.jwt.<path>`
 */
export function jwtOf(config: AuthConfig, deps: Pick<HandlerDeps, 'section'>): JwtConfig {
  const settings = modeSectionOf(config, deps, section, configSchema);
  assertSectionRules(section, jwtIssues(settings, true));
  return withResourceAudience(settings, config.resource);
}

/** The section as written, for its JSON Schema (`config.section.schema.json`). */
export const writtenSchema = jwtSchema;
