import { z } from 'zod';
import { accessIssues, accessSchema, compileRouteKey, fallbackSchema } from './access-schema.js';
import { isMcpKey } from './mcp-key.js';
import { DEFAULTS } from './defaults.js';
import { modeSchema } from './mode-name.js';
import type { SectionIssue } from './fields.js';
import { apiKeysIssues, apiKeysSchema } from './sections/api-keys.js';
import { jwtIssues, jwtSchema, toJwtConfig } from './sections/jwt.js';
import { oauth2Issues, oauth2Schema, toOAuth2Config } from './sections/oauth2.js';
import { forwardAuthSchema } from './sections/forward-auth.js';
import { mcpIssues, mcpSchema } from './sections/mcp.js';
import { resourceSchema } from './sections/resource.js';
import { revocationSchema } from './sections/revocation.js';
import { tlsIssues, tlsSchema, toTlsConfig } from './sections/tls.js';
import { operationsFields } from './sections/operations.js';
import { roleSchema, rolesIssues } from './sections/roles.js';

export { NAME_MAX_LENGTH } from './fields.js';
export { claimsSchema } from './sections/claims.js';

/**
 * The one schema of the config file (YAML keys, snake_case), composed of the sections' own
 * schemas; the rules that span fields are each section's, asked once every field is read.
 */
export const configSchema = z
  .strictObject({
    auth: z.strictObject({
      // One mode, or a list of modes on the same routes (the credential picks the mode).
      // The list first: an empty list is a list that is too short, not a bad mode name.
      mode: z.union([z.array(modeSchema).min(1, 'must list at least one mode'), modeSchema]).default(DEFAULTS.mode),
      fallback: fallbackSchema,
      api_keys: apiKeysSchema,
      jwt: jwtSchema,
      oauth2: oauth2Schema,
    }),
    roles: z.array(roleSchema).default([]),
    ...operationsFields,
    forward_auth: forwardAuthSchema,
    resource: resourceSchema,
    revocation: revocationSchema,
    tls: tlsSchema,
    mcp: mcpSchema,
    access: accessSchema,
  })
  .superRefine((config, ctx) => {
    const modes: readonly string[] = [config.auth.mode].flat();
    // An empty `providers` list is refused by its own schema; the jwt rules would only restate it.
    const jwt =
      config.auth.jwt.providers?.length === 0 ? [] : jwtIssues(toJwtConfig(config.auth.jwt), modes.includes('jwt'));
    const issues: SectionIssue[] = [
      ...jwt,
      ...oauth2Issues(toOAuth2Config(config.auth.oauth2), modes.includes('oauth2')),
      ...apiKeysIssues(config.auth.api_keys),
      ...rolesIssues(config.roles),
      ...tlsIssues(toTlsConfig(config.tls)),
      ...clientLimitIssues(config.auth.api_keys.keys ?? [], config.rate_limit !== null),
      ...accessIssues(config.access, [config.auth.mode].flat()).map(({ path, message }) => ({
        path: ['access', ...path],
        message,
      })),
      ...mcpIssues(config.mcp, Object.keys(config.access).filter(isMcpKey), (endpoint) =>
        namesPost(Object.keys(config.access), endpoint),
      ),
    ];
    for (const { path, message } of issues) ctx.addIssue({ code: 'custom', path: [...path], message });
  });

/** True when a route key of `keys` names a POST to `path` (`"POST /mcp"`, `"* /mcp"`). */
function namesPost(keys: readonly string[], path: string): boolean {
  return keys.some((key) => {
    if (key === 'default' || key === 'report_only' || key === 'log' || isMcpKey(key)) return false;
    try {
      const route = compileRouteKey(key);
      return (route.method === 'POST' || route.method === '*') && route.matchPath(path) !== false;
    } catch {
      // A broken key is reported by accessIssues.
      return false;
    }
  });
}

/** A client's own limits are counted on `rate_limit`'s store: without one they would count nothing. */
function clientLimitIssues(
  keys: readonly { requests_per_minute?: number | undefined; quota?: unknown }[],
  rateLimited: boolean,
): SectionIssue[] {
  if (rateLimited) return [];
  return keys.flatMap((entry, index) =>
    (['requests_per_minute', 'quota'] as const)
      .filter((field) => entry[field] != null)
      .map((field) => ({
        path: ['auth', 'api_keys', 'keys', index, field],
        message: "needs the top-level rate_limit (its store counts the client's requests)",
      })),
  );
}

/** The config file as the schema reads it. */
export type RawConfigInput = z.input<typeof configSchema>;
export type RawConfigOutput = z.output<typeof configSchema>;
