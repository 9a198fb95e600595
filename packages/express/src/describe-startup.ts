import { describeKeySources, type AuthMode } from '@authlayer/core';
import type { AuthMiddleware } from './middleware.js';

/**
 * One line for operators to log at start-up: the configured mode, the handler that actually runs
 * (`none` for the no-auth fallback), and where the keys come from, by variable name or redacted
 * URL, never a value.
 *
 * @example
 * logger.info(describeStartup(auth));
 * // 'auth.mode api_key, handler api_key, keys from environment variable SERVICE_API_KEY'
 */
export function describeStartup(auth: AuthMiddleware): string {
  const active = auth.methods.filter((method): method is AuthMode => method !== 'none');
  const keys =
    active.length === 0
      ? 'keys: none, requests are NOT authenticated'
      : `keys from ${describeKeySources(auth.config, active)}`;
  return `auth.mode ${listed(auth.modes)}, handler ${listed(auth.methods)}, ${keys}`;
}

const listed = (names: readonly string[]): string => (names.length === 1 ? String(names[0]) : `[${names.join(', ')}]`);
