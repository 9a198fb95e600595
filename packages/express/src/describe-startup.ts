import { summaryOf } from '@authlayer/engine/internal';
import type { AuthMiddleware } from './middleware.js';

/**
 * One line for operators to log at start-up: the configured mode, the handler that actually runs
 * (`none` for the no-auth fallback), and where the keys come from, as the handler says
 * (`AuthHandler.summary`): variable names and redacted URLs, never a value.
 *
 * @example
 * logger.info(describeStartup(auth));
 * // 'auth.mode api_key, handler api_key, keys from environment variable SERVICE_API_KEY'
 */
export function describeStartup(auth: AuthMiddleware): string {
  const keys =
    auth.handler.method === 'none'
      ? 'keys: none, requests are NOT authenticated'
      : `keys from ${summaryOf(auth.handler)}`;
  return `auth.mode ${listed(auth.modes)}, handler ${listed(auth.methods)}, ${keys}`;
}

const listed = (names: readonly string[]): string => (names.length === 1 ? String(names[0]) : `[${names.join(', ')}]`);
