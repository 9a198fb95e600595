import type { AuthConfig } from './auth-config.js';

/**
 * The variable holding the expected API key: `env_var`, or `<PREFIX>_API_KEY` when `prefix` is
 * set (prefix `prod` reads `PROD_API_KEY`).
 */
export function apiKeyVariable(config: AuthConfig): string {
  const { prefix, envVar } = config.apiKeys;
  return prefix === null ? envVar : `${prefix.toUpperCase()}_API_KEY`;
}
