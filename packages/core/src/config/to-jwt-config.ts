import type { z } from 'zod';
import type { JwtConfig, JwtProviderConfig } from './auth-config.js';
import { toClaimsConfig } from './claims-config.js';
import type { jwtSchema } from './jwt-schema.js';

type RawJwt = z.output<typeof jwtSchema>;
type RawProvider = NonNullable<RawJwt['providers']>[number];

/**
 * `auth.jwt` as the schema read it, in camelCase. Each provider takes what it leaves out from
 * `auth.jwt`, except its key source, which is always its own.
 */
export function toJwtConfig(jwt: RawJwt): JwtConfig {
  const own = toProvider(jwt);
  const providers = (jwt.providers ?? []).map((entry) =>
    toProvider({
      ...jwt,
      jwks_url: entry.jwks_url ?? null,
      public_key_env: entry.public_key_env ?? null,
      discovery: entry.discovery ?? false,
      ...definedFields(entry),
    }),
  );
  return { ...own, cookie: jwt.cookie, providers };
}

function toProvider(jwt: Omit<RawJwt, 'providers' | 'cookie'>): JwtProviderConfig {
  return {
    jwksUrl: jwt.jwks_url,
    publicKeyEnv: jwt.public_key_env,
    discovery: jwt.discovery,
    issuer: jwt.issuer,
    audience: jwt.audience,
    algorithms: [...new Set(jwt.algorithms)],
    leewaySeconds: jwt.leeway_seconds,
    claims: toClaimsConfig(jwt.claims),
    requiredClaims: [...new Set(jwt.required_claims)],
    tokenType: jwt.token_type,
    staleKeysSeconds: jwt.stale_keys_seconds,
    trustRoles: jwt.trust_roles,
  };
}

/** The fields a provider entry sets (`claims: null` is set: every default claim). */
function definedFields(entry: RawProvider): Partial<RawProvider> {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as Partial<RawProvider>;
}
