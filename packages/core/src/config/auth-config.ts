import type { Fallback } from './access-schema.js';
import type { AuthMode, JwtAlgorithm } from './defaults.js';
import type { RateLimitConfig } from './operations-config.js';
import type { OAuth2Config } from './oauth2-config.js';

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
  /** `keys`: named keys for many clients. `null` (the default): the spec's single key. */
  readonly keys: readonly ApiKeyEntryConfig[] | null;
}

/**
 * One entry of `auth.api_keys.keys`. Entries of one name are one client (several live keys for
 * rotation) and all carry that client's `roles` and `tenantId`.
 */
export interface ApiKeyEntryConfig {
  /** The client; becomes `userId`. */
  readonly name: string;
  /** Variable holding the key itself; `null` when `hashEnv` is set. */
  readonly envVar: string | null;
  /** Variable holding the hex SHA-256 of the key; `null` when `envVar` is set. */
  readonly hashEnv: string | null;
  /** Roles of the client; permissions come from the top-level `roles`. */
  readonly roles: readonly string[];
  readonly tenantId: string | null;
  /** `YYYY-MM-DD`: from that day (UTC) on, the key is refused. */
  readonly expires: string | null;
  /** `YYYY-MM-DD`: when the key was made, for the `rotation_days` warning. */
  readonly created: string | null;
}

/** `auth.jwt.claims`, `auth.oauth2.claims`: claim names (dot paths allowed) for each identity field. */
export interface ClaimsConfig {
  readonly userId: string;
  readonly email: string;
  readonly name: string;
  readonly roles: string;
  readonly permissions: string;
  readonly scopes: string;
  readonly tenantId: string | null;
}

/**
 * How tokens of one issuer are checked: `auth.jwt` itself, or one entry of `auth.jwt.providers`
 * (whose fields left out are taken from `auth.jwt`, except the key source).
 */
export interface JwtProviderConfig {
  readonly jwksUrl: string | null;
  readonly publicKeyEnv: string | null;
  /** `jwks_uri` from `<issuer>/.well-known/openid-configuration`. Default `false`. */
  readonly discovery: boolean;
  readonly issuer: string | null;
  readonly audience: string | null;
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
export interface JwtConfig extends JwtProviderConfig {
  /** A cookie read when there is no Authorization header. Default `null`. */
  readonly cookie: string | null;
  /** Several issuers, each picked by the token's `iss`. Empty when `auth.jwt` is the only one. */
  readonly providers: readonly JwtProviderConfig[];
}

/** One entry of the top-level `roles` list. */
export interface RoleConfig {
  readonly name: string;
  readonly permissions: readonly string[];
}

/**
 * A checked config: the YAML's `auth` section and top-level `roles`, `rate_limit` and `metrics`, converted once to
 * camelCase, with every default filled in, deeply frozen. Made only by `parseAuthConfig`.
 */
export interface AuthConfig {
  /** The mode, or the first of `auth.mode` when it is a list; see {@link AuthConfig.modes}. */
  readonly mode: AuthMode;
  /** Every mode `auth.mode` lists, in order, without repeats (one entry for a single mode). */
  readonly modes: readonly AuthMode[];
  /** `auth.fallback`: `no_auth` (default, the spec's) or `refuse` (a missing mode package stops start-up). */
  readonly fallback: Fallback;
  readonly apiKeys: ApiKeysConfig;
  readonly jwt: JwtConfig;
  readonly oauth2: OAuth2Config;
  readonly roles: readonly RoleConfig[];
  /** Top-level `rate_limit`; `null` (the default) means no limits. */
  readonly rateLimit: RateLimitConfig | null;
  /** Top-level `metrics`: serve `GET /metrics`. Default `false`. */
  readonly metrics: boolean;
  /** The top-level `access` section: `"METHOD /path"` → what the caller needs. Default `{}`. */
  readonly access: Readonly<Record<string, AccessRule>>;
}

/** One `access` entry: the caller needs every permission, scope and role listed. */
export interface AccessRule {
  readonly permissions: readonly string[];
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
}
