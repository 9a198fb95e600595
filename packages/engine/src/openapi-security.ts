import type { AuthHandler, SecuritySchemePart } from '@authlayer/core';
import type { SecurityRequirementObject, SecuritySchemeObject } from 'openapi3-ts/oas31';

/** The security part of an OpenAPI 3.1 document for a handler. */
export interface OpenApiSecurity {
  /** For `components.securitySchemes`. */
  readonly schemes: Record<string, SecuritySchemeObject>;
  /** For an operation's `security`: alternatives, any one of which is enough. Empty when nothing is checked. */
  readonly requirements: SecurityRequirementObject[];
}

/**
 * Builds the security schemes of what a handler checks, as its modes describe them
 * (`AuthHandler.securitySchemes`): API key mode `APIKeyHeader` (apiKey in the configured header)
 * and, with `allow_bearer`, a part of `BearerAuth`; jwt and oauth2 a `BearerAuth` each. Parts of
 * one name are merged into one scheme, so one `BearerAuth` serves every mode that takes a Bearer
 * token (`bearerFormat: JWT` unless opaque tokens are taken too), and `DPoPAuth` (`scheme: DPoP`,
 * RFC 9449) for a mode whose `dpop` is on (alone when it is `required`). Every scheme is an alternative
 * (`security: [{APIKeyHeader: []}, {BearerAuth: []}]`). The no-auth fallback documents none.
 *
 * @param handler - the middleware's active handler (`auth.handler`), or any handler
 * @example
 * const { schemes, requirements } = openApiSecurity(auth.handler);
 */
export function openApiSecurity(handler: Pick<AuthHandler, 'securitySchemes'>): OpenApiSecurity {
  const parts = new Map<string, SecuritySchemePart[]>();
  for (const part of handler.securitySchemes?.() ?? []) parts.set(part.name, [...(parts.get(part.name) ?? []), part]);
  const schemes: Record<string, SecuritySchemeObject> = {};
  for (const [name, named] of parts) schemes[name] = merge(named);
  return { schemes, requirements: Object.keys(schemes).map((name) => ({ [name]: [] })) };
}

function merge(parts: readonly SecuritySchemePart[]): SecuritySchemeObject {
  const first = parts[0] as SecuritySchemePart;
  const description = parts.map((part) => part.description).join(', or ');
  if (first.type === 'apiKey') return { type: 'apiKey', in: 'header', name: first.header, description };
  // A format holds only when every part that speaks of one names it (null: no fixed format).
  const formats = new Set(parts.flatMap((part) => ('bearerFormat' in part ? [part.bearerFormat] : [])));
  const [format] = formats;
  const bearerFormat = formats.size === 1 && typeof format === 'string' ? { bearerFormat: format } : {};
  if (first.scheme === 'dpop') return { type: 'http', scheme: 'DPoP', description };
  return { type: 'http', scheme: 'bearer', ...bearerFormat, description };
}
