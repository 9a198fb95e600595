import { redactUrl } from '../redact-url.js';
import type { AuthConfig } from './auth-config.js';
import type { AuthMode } from './defaults.js';

/**
 * The variable holding the expected API key: `env_var`, or `<PREFIX>_API_KEY` when `prefix` is
 * set (prefix `prod` reads `PROD_API_KEY`).
 */
export function apiKeyVariable(config: AuthConfig): string {
  const { prefix, envVar } = config.apiKeys;
  return prefix === null ? envVar : `${prefix.toUpperCase()}_API_KEY`;
}

/**
 * Where the given modes (default: every configured one) take their key material from, for a
 * start-up line: variable names and URLs (user info and query values redacted), never a value.
 * With several modes each source is prefixed with its mode.
 *
 * @example
 * describeKeySources(parseAuthConfig({ auth: { mode: 'api_key' } })); // 'environment variable SERVICE_API_KEY'
 */
export function describeKeySources(config: AuthConfig, modes: readonly AuthMode[] = config.modes): string {
  const sources = modes.map((mode) => (modes.length > 1 ? `${mode}: ` : '') + keySourceOf(config, mode));
  return sources.join('; ');
}

function keySourceOf(config: AuthConfig, mode: AuthMode): string {
  if (mode === 'api_key') {
    if (!config.apiKeys.enabled) return 'none (auth.api_keys.enabled is false)';
    const { keys } = config.apiKeys;
    if (keys === null) return `environment variable ${apiKeyVariable(config)}`;
    // Never 10 000 variable names on one line: how many, and where they are named.
    const clients = new Set(keys.map((key) => key.name)).size;
    return `auth.api_keys.keys (${keys.length} key${keys.length === 1 ? '' : 's'} of ${clients} client${clients === 1 ? '' : 's'})`;
  }
  if (mode === 'oauth2') {
    const { introspectionUrl, issuer, clientSecretEnv } = config.oauth2;
    const endpoint =
      introspectionUrl !== null
        ? redactUrl(introspectionUrl)
        : `the discovery document of ${redactUrl(String(issuer))}`;
    return `introspection at ${endpoint}, client secret from environment variable ${clientSecretEnv}`;
  }
  const { jwksUrl, publicKeyEnv } = config.jwt;
  return jwksUrl !== null ? `jwks_url ${redactUrl(jwksUrl)}` : `environment variable ${String(publicKeyEnv)}`;
}
