import type { ClaimsConfig } from './auth-config.js';
import type { RawConfigOutput } from './config-schema.js';
import type { OAuth2AuthMethod } from './defaults.js';

/** `auth.oauth2`, with every default filled in (RFC 7662 token introspection). */
export interface OAuth2Config {
  /** The introspection endpoint; `null` when it comes from the issuer's metadata (`discovery`). */
  readonly introspectionUrl: string | null;
  /** Read `introspection_endpoint` from `<issuer>/.well-known/openid-configuration`. Default `false`. */
  readonly discovery: boolean;
  /** When set, the answer's `iss` must equal it (and discovery's document must name it). */
  readonly issuer: string | null;
  /** When set, the answer's `aud` (a string, or a list of which one entry) must equal it. */
  readonly audience: string | null;
  /** This API's client id at the provider; required in oauth2 mode. */
  readonly clientId: string | null;
  /** The variable holding the client secret. Default `OAUTH2_CLIENT_SECRET`. */
  readonly clientSecretEnv: string;
  /** Default `client_secret_basic`. */
  readonly authMethod: OAuth2AuthMethod;
  /** How long an active answer is reused, never past its `exp`; 0 = never. Default 60, at most 3600. */
  readonly cacheSeconds: number;
  /** How long one introspection request may take. Default 5000, 1 to 60000. */
  readonly timeoutMs: number;
  readonly claims: ClaimsConfig;
}

/** The YAML's `auth.oauth2` in camelCase, with `claims` already converted. */
export function toOAuth2Config(raw: RawConfigOutput['auth']['oauth2'], claims: ClaimsConfig): OAuth2Config {
  return {
    introspectionUrl: raw.introspection_url,
    discovery: raw.discovery,
    issuer: raw.issuer,
    audience: raw.audience,
    clientId: raw.client_id,
    clientSecretEnv: raw.client_secret_env,
    authMethod: raw.auth_method,
    cacheSeconds: raw.cache_seconds,
    timeoutMs: raw.timeout_ms,
    claims,
  };
}
