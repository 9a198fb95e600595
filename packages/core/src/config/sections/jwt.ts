import { z } from 'zod';
import { claimPath, envVarName, keySetUrl, text } from './common-fields.js';
import { DEFAULTS, HMAC_ALGORITHMS, JWT_ALGORITHMS } from './defaults.js';

// RFC 6265 §4.1.1: a cookie name is an RFC 2616 token.
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// RFC 7515 §4.1.9: `typ` is a media type, with or without its `application/` prefix.
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)?$/;

/** `auth.jwt.claims`; `null` (or left out) means every default. */
export const claimsSchema = z.strictObject({
  user_id: claimPath.default(DEFAULTS.claims.userId),
  email: claimPath.default(DEFAULTS.claims.email),
  name: claimPath.default(DEFAULTS.claims.name),
  roles: claimPath.default(DEFAULTS.claims.roles),
  permissions: claimPath.default(DEFAULTS.claims.permissions),
  scopes: claimPath.default(DEFAULTS.claims.scopes),
  tenant_id: claimPath.nullable().default(DEFAULTS.claims.tenantId),
});

const jwksUrl = keySetUrl;
const algorithms = z.array(z.enum(JWT_ALGORITHMS)).min(1, 'must list at least one algorithm');
const leeway = z
  .int()
  .min(0, `must be 0 to ${DEFAULTS.leewayMaxSeconds}`)
  .max(DEFAULTS.leewayMaxSeconds, `must be 0 to ${DEFAULTS.leewayMaxSeconds}`);
const staleKeys = z
  .int()
  .min(0, `must be 0 to ${DEFAULTS.staleKeysMaxSeconds}`)
  .max(DEFAULTS.staleKeysMaxSeconds, `must be 0 to ${DEFAULTS.staleKeysMaxSeconds}`);
const requiredClaims = z.array(claimPath);
const tokenType = z.string().regex(MEDIA_TYPE, 'must be a media type such as at+jwt or application/at+jwt');

/**
 * One entry of `auth.jwt.providers`. `issuer` is required and picks the entry; the key source
 * (`jwks_url`, `public_key_env` or `discovery`) is the entry's own; every other field left out
 * is taken from `auth.jwt`.
 */
const providerSchema = z.strictObject({
  issuer: text,
  jwks_url: jwksUrl.optional(),
  public_key_env: envVarName.optional(),
  discovery: z.boolean().optional(),
  audience: text.nullable().optional(),
  algorithms: algorithms.optional(),
  leeway_seconds: leeway.optional(),
  claims: claimsSchema.nullable().optional(),
  required_claims: requiredClaims.optional(),
  token_type: tokenType.nullable().optional(),
  stale_keys_seconds: staleKeys.optional(),
  trust_roles: z.boolean().optional(),
});

/** `auth.jwt`. */
export const jwtSchema = z
  .strictObject({
    jwks_url: jwksUrl.nullable().default(null),
    public_key_env: envVarName.nullable().default(null),
    issuer: text.nullable().default(null),
    audience: text.nullable().default(null),
    algorithms: algorithms.default([...DEFAULTS.jwt.algorithms]),
    leeway_seconds: leeway.default(DEFAULTS.jwt.leewaySeconds),
    claims: claimsSchema.nullable().default(null),
    // Beyond the spec: real identity providers (contract, "JWT with real identity providers").
    discovery: z.boolean().default(DEFAULTS.jwt.discovery),
    stale_keys_seconds: staleKeys.default(DEFAULTS.jwt.staleKeysSeconds),
    required_claims: requiredClaims.default([]),
    token_type: tokenType.nullable().default(null),
    cookie: z.string().regex(COOKIE_NAME, 'must be a cookie name (RFC 6265 token)').nullable().default(null),
    // Round 3 hardening: whether the top-level roles section gives this issuer's roles permissions.
    trust_roles: z.boolean().default(DEFAULTS.jwt.trustRoles),
    providers: z.array(providerSchema).min(1, 'must list at least one provider').nullable().default(null),
  })
  .prefault({});

type JwtOutput = z.output<typeof jwtSchema>;
type Path = (string | number)[];

/** The key-source fields of `auth.jwt` or of one provider. */
interface SourceFields {
  readonly jwks_url?: string | null | undefined;
  readonly public_key_env?: string | null | undefined;
  readonly discovery?: boolean | undefined;
  readonly issuer?: string | null | undefined;
}

/**
 * The rules of `auth.jwt` that span several fields: one key source (for `auth.jwt`, or for
 * each provider), `discovery` needs `issuer`, HMAC only with `public_key_env`, unique issuers.
 */
export function checkJwtRules(jwt: JwtOutput, jwtMode: boolean, ctx: z.RefinementCtx): void {
  const at = (path: Path, message: string) => ctx.addIssue({ code: 'custom', path: ['auth', 'jwt', ...path], message });
  if (jwt.providers === null) {
    if (jwtMode && sourcesOf(jwt).length === 0)
      at([], 'jwt mode needs jwks_url, public_key_env, discovery or providers');
    checkSource(jwt, jwt.algorithms, [], at);
    return;
  }
  for (const field of ['jwks_url', 'public_key_env', 'issuer'] as const) {
    if (jwt[field] !== null) at([field], 'set it in each entry of providers, not beside them');
  }
  if (jwt.discovery) at(['discovery'], 'set it in each entry of providers, not beside them');
  const seen = new Set<string>();
  jwt.providers.forEach((provider, index) => {
    const path = ['providers', index];
    if (sourcesOf(provider).length === 0) at(path, 'each provider needs jwks_url, public_key_env or discovery');
    checkSource(provider, provider.algorithms ?? jwt.algorithms, path, at);
    if (seen.has(provider.issuer)) at([...path, 'issuer'], `duplicate issuer "${provider.issuer}"`);
    seen.add(provider.issuer);
  });
}

function sourcesOf(fields: SourceFields): string[] {
  const sources: string[] = [];
  if (fields.jwks_url != null) sources.push('jwks_url');
  if (fields.public_key_env != null) sources.push('public_key_env');
  if (fields.discovery === true) sources.push('discovery');
  return sources;
}

function checkSource(
  fields: SourceFields,
  algs: readonly string[],
  path: Path,
  at: (path: Path, message: string) => void,
): void {
  const sources = sourcesOf(fields);
  if (sources.length > 1) at(path, `set one of jwks_url, public_key_env and discovery, not ${sources.join(' and ')}`);
  // OpenID Connect Discovery §4: the document's URL is made from the issuer.
  if (fields.discovery === true && fields.issuer == null) at([...path, 'issuer'], 'discovery needs issuer');
  const hmac = algs.filter((alg) => (HMAC_ALGORITHMS as readonly string[]).includes(alg));
  const remote = sources.find((source) => source !== 'public_key_env');
  if (remote !== undefined && hmac.length > 0) {
    at([...path, 'algorithms'], `${hmac.join(', ')} need a shared secret through public_key_env, not ${remote}`);
  }
}
