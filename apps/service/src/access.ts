import { ConfigError, type AuthConfig } from '@authlayer/core';

/** The routes of this service that authenticate, as `access` keys name them. */
export const GUARDABLE_ROUTES = ['POST /invoke'] as const;

/**
 * Refuses an `access` entry for a route this service does not authenticate: it would guard
 * nothing, and an operator who wrote it expects a closed route (fail closed, at start-up).
 *
 * @throws ConfigError naming each such entry
 */
export function checkAccessRoutes(config: AuthConfig): void {
  const unknown = Object.keys(config.access).filter(
    (route) => !(GUARDABLE_ROUTES as readonly string[]).includes(route),
  );
  if (unknown.length === 0) return;
  throw new ConfigError(
    unknown.map((route) => ({
      path: `access.${route}`,
      message: `the service has no authenticated route ${route} (access can guard: ${GUARDABLE_ROUTES.join(', ')})`,
    })),
  );
}
