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
 * header) in API key mode, `BearerAuth` (http bearer) when `allow_bearer` is on or the mode is
 * jwt (then with `bearerFormat: JWT`). Pass the middleware's `method` so that a no-auth fallback
 * documents no scheme rather than one that is not checked.
 *
 * @example
 * const { schemes, requirements } = openApiSecurity(auth.config, auth.method);
 */
export function openApiSecurity(config: AuthConfig, method: AuthMethod = config.mode): OpenApiSecurity {
  const schemes: Record<string, SecuritySchemeObject> = {};
  if (method === 'api_key') {
    const { header, allowBearer } = config.apiKeys;
    schemes.APIKeyHeader = { type: 'apiKey', in: 'header', name: header, description: `API key in the ${header} header` };
    if (allowBearer) schemes.BearerAuth = { type: 'http', scheme: 'bearer', description: 'API key as a Bearer token' };
  } else if (method === 'jwt') {
    schemes.BearerAuth = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT access token' };
  }
  return { schemes, requirements: Object.keys(schemes).map((name) => ({ [name]: [] })) };
}
