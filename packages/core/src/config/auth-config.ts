import type { AccessPolicy, AccessValue, Fallback } from './access-schema.js';
import type { AuthMode } from './defaults.js';
import type { ForwardAuthConfig } from './sections/forward-auth.js';
import type { RateLimitConfig, ReloadConfig } from './sections/operations.js';
import type { McpConfig } from './sections/mcp.js';
import type { ResourceConfig } from './sections/resource.js';
import type { ScopesConfig } from './sections/scopes.js';
import type { RevocationConfig } from './sections/revocation.js';
import type { RoleConfig } from './sections/roles.js';
import type { TlsConfig } from './sections/tls.js';

export type { ClaimsConfig } from './sections/claims.js';
export type { ForwardAuthConfig, IdentityField } from './sections/forward-auth.js';
export type { RateLimitConfig, ReloadConfig } from './sections/operations.js';
export type { McpConfig } from './sections/mcp.js';
export type { ResourceConfig } from './sections/resource.js';
export type { ScopesConfig } from './sections/scopes.js';
export type { RedisSentinelStore, RevocationConfig } from './sections/revocation.js';
export type { RoleConfig } from './sections/roles.js';
export type { ConstraintMode, SenderConstraintConfig } from './sections/sender-constraint.js';
export type { TlsConfig } from './sections/tls.js';

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
  readonly roles: readonly RoleConfig[];
  /** Top-level `rate_limit`; `null` (the default) means no limits. */
  readonly rateLimit: RateLimitConfig | null;
  /** Top-level `metrics`: serve `GET /metrics`. Default `false`. */
  readonly metrics: boolean;
  /** Top-level `reload`: `watch` the config file and its key files. Default `{ watch: false }`. */
  readonly reload: ReloadConfig;
  /** The routes of the top-level `access` section: `"METHOD /pattern"` → what it needs. Default `{}`. */
  readonly access: Readonly<Record<string, AccessValue>>;
  /** `access.default`, `access.report_only` and `access.log`. */
  readonly accessPolicy: AccessPolicy;
  /** Top-level `forward_auth`: the reference service's `/forward-auth` for proxies. Default off. */
  readonly forwardAuth: ForwardAuthConfig;
  /** Top-level `resource`: RFC 9728 protected resource metadata; `null` (default): none. */
  readonly resource: ResourceConfig | null;
  /**
   * Top-level `mcp`: the MCP server's Streamable HTTP endpoint, whose POSTed JSON-RPC messages the
   * `"MCP <method> <name>"` keys of `access` judge; `null` (default): none.
   */
  readonly mcp: McpConfig | null;
  /** Top-level `scopes`: `implies`, closed at load (a broader scope grants narrower ones). */
  readonly scopes?: ScopesConfig;
  /** Top-level `revocation`: the revocation list every replica enforces; `null` (default): none. */
  readonly revocation: RevocationConfig | null;
  /** Top-level `tls`: HTTPS and client certificates of the reference service; `null` (default): none. */
  readonly tls: TlsConfig | null;
  /**
   * The `auth` sections of mode packages outside this repository (`auth.hmac`), as written (YAML
   * keys), by key; absent when the config has none. Each package checks its own section when the
   * engine loads it (`configSchema`) and gets it checked as `HandlerDeps.section`.
   */
  readonly modeSections?: Readonly<Record<string, unknown>>;
}
