import type { AuthConfig, AuthMethod } from '@authlayer/core';
import type { SecurityRequirementObject, SecuritySchemeObject } from 'openapi3-ts/oas31';

/** The security part of an OpenAPI 3.1 document for a config. */
export interface OpenApiSecurity {
  /** For `components.securitySchemes`. */
  readonly schemes: Record<string, SecuritySchemeObject>;
  /** For an operation's `security`: alternatives, any one of which is enough. Empty when nothing is checked. */
  readonly requirements: SecurityRequirementObject[];
}

/**
 * Builds the security schemes a config calls for: `APIKeyHeader` (apiKey in the configured
 * header) in API key mode, `BearerAuth` (http bearer) when `allow_bearer` is on or jwt is checked
 * or oauth2 is checked (with `bearerFormat: JWT` when jwt is and oauth2 is not; one `BearerAuth`
 * serves every mode that takes a Bearer token). Every scheme is an alternative (`security: [{APIKeyHeader: []}, {BearerAuth: []}]`). Pass the
 * middleware's `methods` so that a left-out mode or the no-auth fallback documents no scheme that
 * is not checked.
 *
 * @param methods - the methods that authenticate (default: every mode of the config)
 * @example
 * const { schemes, requirements } = openApiSecurity(auth.config, auth.methods);
 */
export function openApiSecurity(
  config: AuthConfig,
  methods: AuthMethod | readonly AuthMethod[] = config.modes,
): OpenApiSecurity {
  const checked = new Set<AuthMethod>([methods].flat());
  const schemes: Record<string, SecuritySchemeObject> = {};
  const { header, allowBearer } = config.apiKeys;
  const apiKeyBearer = checked.has('api_key') && allowBearer;
  if (checked.has('api_key')) {
    schemes.APIKeyHeader = {
      type: 'apiKey',
      in: 'header',
      name: header,
      description: `API key in the ${header} header`,
    };
  }
  // One BearerAuth for every mode that takes a Bearer token; `bearerFormat: JWT` unless opaque tokens are taken too.
  const bearers = [
    checked.has('jwt') ? 'JWT access token' : undefined,
    checked.has('oauth2') ? 'OAuth2 access token, checked at the provider (RFC 7662)' : undefined,
    apiKeyBearer ? 'API key as a Bearer token' : undefined,
  ].filter((text): text is string => text !== undefined);
  if (bearers.length > 0) {
    const format = checked.has('jwt') && !checked.has('oauth2') ? { bearerFormat: 'JWT' } : {};
    schemes.BearerAuth = { type: 'http', scheme: 'bearer', ...format, description: bearers.join(', or ') };
  }
  return { schemes, requirements: Object.keys(schemes).map((name) => ({ [name]: [] })) };
}
