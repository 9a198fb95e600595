import { ConfigError, withAccessDefaults, type AccessValue, type AuthConfig } from '@authlayer/core';
import { resourceMetadataUrl } from '@authlayer/core/internal';

/** The path of the RFC 9728 metadata of `identifier` (`/.well-known/oauth-protected-resource...`). */
export function metadataPath(identifier: string): string {
  return new URL(resourceMetadataUrl(identifier)).pathname;
}

/**
 * The service's own routes under the `access` table: what each needs unless the config says
 * otherwise (an entry of the same key in the file wins). Without `access.default` in the file,
 * every other path stays public, so it keeps answering 404 as it did before the table existed.
 */
export function withServiceRoutes(config: AuthConfig, metrics: boolean): AuthConfig {
  const entries: Record<string, AccessValue> = {
    'GET /healthz': 'public',
    'GET /readyz': 'public',
    ...(metrics ? { 'GET /metrics': 'public' } : {}),
    'GET /openapi.json': 'public',
    'GET /docs{/*path}': 'public',
    'POST /invoke': 'authenticated',
    // auth.access answers the metadata itself (a public entry), unless serve_metadata is false.
    ...(config.resource === null || config.resource.serveMetadata !== false
      ? {}
      : { [`GET ${metadataPath(config.resource.identifier)}`]: 'public' as const }),
    // Not with forward_auth: there the table also guards the proxied application, whose paths
    // no entry names need what access.default says.
    ...(config.accessPolicy.default === null && !config.forwardAuth.enabled ? { '* {/*path}': 'public' } : {}),
  };
  return withAccessDefaults(config, entries);
}

/**
 * Refuses `access` entries that match none of the service's routes: each would guard nothing, and
 * an operator who wrote it expects a closed route (fail closed, at start-up).
 *
 * @throws ConfigError naming each such entry
 */
export function checkAccessRoutes(unmatched: readonly string[]): void {
  if (unmatched.length === 0) return;
  throw new ConfigError(
    unmatched.map((route) => ({
      path: `access.${route}`,
      message: `the service has no route that ${route} matches (its routes: GET /healthz, GET /readyz, GET /metrics, GET /openapi.json, GET /docs, POST /invoke)`,
    })),
  );
}
