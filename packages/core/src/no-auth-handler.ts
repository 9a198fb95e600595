import { createAuthContext } from './auth-context.js';
import { fromAuthenticateNow } from './authenticate-now.js';
import type { AuthHandler } from './handler.js';

const ANONYMOUS = createAuthContext({ method: 'none' });

/**
 * The handler that authenticates nobody and lets every request through with an anonymous
 * context (`method: "none"`). Used when a mode's package is not installed, or when
 * `auth.api_keys.enabled` is false; whoever installs it must warn that requests are NOT
 * authenticated.
 */
export function createNoAuthHandler(): AuthHandler {
  return Object.freeze({
    method: 'none' as const,
    ...fromAuthenticateNow(() => ANONYMOUS),
  });
}
