import { z } from 'zod';
import { accessIssues, accessSchema, compileRouteKey, fallbackSchema, isPolicyKey } from './access-schema.js';
import { isMcpKey } from './mcp-key.js';
import { DEFAULTS } from './defaults.js';
import { modeSchema } from './mode-name.js';
import type { SectionIssue } from './fields.js';
import { forwardAuthSchema } from './sections/forward-auth.js';
import { mcpIssues, mcpSchema } from './sections/mcp.js';
import { resourceSchema } from './sections/resource.js';
import { scopesIssues, scopesSchema } from './sections/scopes.js';
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
    }),
    roles: z.array(roleSchema).default([]),
    ...operationsFields,
    forward_auth: forwardAuthSchema,
    resource: resourceSchema,
    revocation: revocationSchema,
    tls: tlsSchema,
    mcp: mcpSchema,
    scopes: scopesSchema,
    access: accessSchema,
  })
  .superRefine((config, ctx) => {
    const issues: SectionIssue[] = [
      ...rolesIssues(config.roles),
      ...scopesIssues(config.scopes),
      ...tlsIssues(toTlsConfig(config.tls)),
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
    if (isPolicyKey(key) || isMcpKey(key)) return false;
    try {
      const route = compileRouteKey(key);
      return (route.method === 'POST' || route.method === '*') && route.matchPath(path) !== false;
    } catch {
      // A broken key is reported by accessIssues.
      return false;
    }
  });
}

/** The config file as the schema reads it. */
export type RawConfigInput = z.input<typeof configSchema>;
export type RawConfigOutput = z.output<typeof configSchema>;
