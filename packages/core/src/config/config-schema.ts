import { z } from 'zod';
import { accessSchema, fallbackSchema } from './access-schema.js';
import { apiKeyEntriesSchema, apiKeyEntryIssues } from './api-key-entries.js';
import { envVarName, keySetUrl, NAME_MAX_LENGTH, text } from './common-fields.js';
import { AUTH_MODES, DEFAULTS, OAUTH2_AUTH_METHODS } from './defaults.js';
import { checkJwtRules, claimsSchema, jwtSchema } from './jwt-schema.js';
import { shownInError } from './config-error.js';
import { operationsFields } from './operations-config.js';

export { NAME_MAX_LENGTH } from './common-fields.js';
export { claimsSchema } from './jwt-schema.js';

// RFC 9110 §5.6.2: a field name is a token.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PREFIX = /^[A-Za-z][A-Za-z0-9_]*$/;

const apiKeysSchema = z
  .strictObject({
    // No .default(): `keys` excludes an env_var the user wrote, so "not written" must stay visible.
    // parseAuthConfig fills the default; meta keeps it in the JSON Schema.
    env_var: envVarName.optional().meta({ default: DEFAULTS.apiKeys.envVar }),
    prefix: z
      .string()
      .max(NAME_MAX_LENGTH, `must be at most ${NAME_MAX_LENGTH} characters`)
      .regex(PREFIX, 'must be a letter, then letters, digits and _ (it names the variable <PREFIX>_API_KEY)')
      .nullable()
      .default(null),
    header: z
      .string()
      .min(1, 'must not be empty')
      .max(DEFAULTS.headerMaxLength, `must be at most ${DEFAULTS.headerMaxLength} characters`)
      .regex(HEADER_NAME, 'must be a valid HTTP header name')
      // The Authorization header carries `Bearer <key>`, never a bare key: that is what allow_bearer is for.
      .refine((name) => name.toLowerCase() !== 'authorization', 'must not be Authorization (use allow_bearer)')
      .default(DEFAULTS.apiKeys.header),
    allow_bearer: z.boolean().default(DEFAULTS.apiKeys.allowBearer),
    enabled: z.boolean().default(DEFAULTS.apiKeys.enabled),
    rotation_days: z.int().min(1, 'must be at least 1').default(DEFAULTS.apiKeys.rotationDays),
    keys: apiKeyEntriesSchema.optional(),
  })
  .prefault({});

// --- OAuth2 mode (`auth.oauth2`, RFC 7662 token introspection) ---

/** `auth.oauth2`: where and how tokens are introspected. */
const oauth2Schema = z
  .strictObject({
    introspection_url: keySetUrl.nullable().default(null),
    discovery: z.boolean().default(DEFAULTS.oauth2.discovery),
    issuer: text.nullable().default(null),
    audience: text.nullable().default(null),
    client_id: text.nullable().default(null),
    client_secret_env: envVarName.default(DEFAULTS.oauth2.clientSecretEnv),
    auth_method: z.enum(OAUTH2_AUTH_METHODS).default(DEFAULTS.oauth2.authMethod),
    cache_seconds: z
      .int()
      .min(0, `must be 0 to ${DEFAULTS.oauth2.cacheMaxSeconds}`)
      .max(DEFAULTS.oauth2.cacheMaxSeconds, `must be 0 to ${DEFAULTS.oauth2.cacheMaxSeconds}`)
      .default(DEFAULTS.oauth2.cacheSeconds),
    timeout_ms: z
      .int()
      .min(1, `must be 1 to ${DEFAULTS.oauth2.timeoutMaxMs}`)
      .max(DEFAULTS.oauth2.timeoutMaxMs, `must be 1 to ${DEFAULTS.oauth2.timeoutMaxMs}`)
      .default(DEFAULTS.oauth2.timeoutMs),
    claims: claimsSchema.nullable().default(null),
  })
  .prefault({});

type OAuth2Input = z.output<typeof oauth2Schema>;

/** The rules of `auth.oauth2` that span several fields. */
function checkOAuth2(modes: readonly string[], oauth2: OAuth2Input, ctx: z.RefinementCtx): void {
  const issue = (message: string, field?: string): void =>
    ctx.addIssue({ code: 'custom', path: ['auth', 'oauth2', ...(field === undefined ? [] : [field])], message });
  if (oauth2.discovery && oauth2.issuer === null) issue('discovery needs issuer', 'issuer');
  if (oauth2.discovery && oauth2.introspection_url !== null) issue('set introspection_url or discovery, not both');
  if (!modes.includes('oauth2')) return;
  if (!oauth2.discovery && oauth2.introspection_url === null)
    issue('oauth2 mode needs introspection_url, or issuer with discovery: true');
  if (oauth2.client_id === null) issue('oauth2 mode needs client_id', 'client_id');
}

// --- end of OAuth2 mode ---

const roleSchema = z.strictObject({
  name: text,
  permissions: z.array(text).default([]),
});

/** The one schema of the config file (YAML keys, snake_case). */
export const configSchema = z
  .strictObject({
    auth: z.strictObject({
      // One mode, or a list of modes on the same routes (the credential picks the mode).
      mode: z
        .union([z.enum(AUTH_MODES), z.array(z.enum(AUTH_MODES)).min(1, 'must list at least one mode')])
        .default(DEFAULTS.mode),
      fallback: fallbackSchema,
      api_keys: apiKeysSchema,
      jwt: jwtSchema,
      oauth2: oauth2Schema,
    }),
    roles: z.array(roleSchema).default([]),
    ...operationsFields,
    access: accessSchema,
  })
  .superRefine((config, ctx) => {
    checkJwtRules(config.auth.jwt, [config.auth.mode].flat().includes('jwt'), ctx);
    checkOAuth2([config.auth.mode].flat(), config.auth.oauth2, ctx);
    for (const issue of apiKeyEntryIssues(config.auth.api_keys)) ctx.addIssue({ code: 'custom', ...issue });
    const seen = new Set<string>();
    config.roles.forEach((role, index) => {
      if (seen.has(role.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['roles', index, 'name'],
          message: `duplicate role "${shownInError(role.name)}"`,
        });
      }
      seen.add(role.name);
    });
  });

/** The config file as the schema reads it. */
export type RawConfigInput = z.input<typeof configSchema>;
export type RawConfigOutput = z.output<typeof configSchema>;
