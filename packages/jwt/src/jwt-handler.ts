import {
  AuthError,
  bearerChallenge,
  createClaimsMapper,
  readBearerToken,
  type AuthConfig,
  type AuthContext,
  type AuthHandler,
  type AuthRequest,
  type HandlerDeps,
} from '@authlayer/core';
import { createKeySource } from './keys/key-source.js';
import type { JwksOptions } from './keys/remote-key-set.js';
import { createTokenCache, type TokenCacheOptions } from './token-cache.js';
import { translateJoseError } from './verify/translate-jose-error.js';
import { timesOf } from './verify/validate-claims.js';
import { createTokenVerifier } from './verify/verify-token.js';

/** {@link HandlerDeps} plus the optional tuning of the remote key set (not in the config file). */
export interface JwtHandlerDeps extends HandlerDeps {
  /** Timeout, cool-down and cache age of the `jwks_url` key set; see {@link JwksOptions}. */
  readonly jwks?: JwksOptions;
  /** Bounds of the cache of verified tokens; see {@link TokenCacheOptions}. */
  readonly tokenCache?: TokenCacheOptions;
}

/**
 * Creates the handler of `auth.mode: jwt`. Start-up work happens here: the static key is read
 * and checked against `algorithms`, or the remote key set is prepared (it is fetched on first
 * use, so an unreachable `jwks_url` does not stop the service).
 *
 * `authenticate` reads `Authorization: Bearer <token>`, verifies the token, and maps its claims
 * to an `AuthContext` with `method: "jwt"`. It rejects with `AuthError` (401) and nothing else;
 * the error's `challenge` is the RFC 6750 `WWW-Authenticate` value. A token verified before is
 * answered from a bounded cache of this handler while a fresh verification would still accept
 * it (see `createTokenCache`); failures are never cached.
 *
 * @throws ConfigError when the key material is missing or cannot serve the configured algorithms.
 * @throws TypeError when called without a config or deps, or when `deps.tokenCache` holds a
 *   bound that is not a non-negative integer.
 * @example
 * const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example.com/jwks', issuer: 'https://idp.example.com' } } });
 * const handler = await createJwtHandler(config, { env: process.env, logger: console });
 * const context = await handler.authenticate({ headers: req.headers });
 */
export async function createJwtHandler(config: AuthConfig, deps: JwtHandlerDeps): Promise<AuthHandler> {
  if (typeof config?.jwt !== 'object' || typeof deps?.env !== 'object' || typeof deps.logger !== 'object') {
    throw new TypeError('createJwtHandler(config, deps) needs a parsed config and { env, logger }');
  }
  const key = await createKeySource(config.jwt, deps);
  const now = deps.now ?? Date.now;
  const verify = createTokenVerifier(key, { jwt: config.jwt, now });
  const mapClaims = createClaimsMapper('jwt', config.jwt.claims, config.roles);
  const cache = createTokenCache<AuthContext>(config.jwt.leewaySeconds, deps.tokenCache);

  async function authenticate(request: AuthRequest): Promise<AuthContext> {
    const bearer = readBearerToken(request);
    if (bearer.kind === 'absent') throw new AuthError('credentials_missing', bearerChallenge('credentials_missing'));
    if (bearer.kind === 'malformed') throw new AuthError('token_malformed', bearerChallenge('token_malformed'));
    const cached = cache.get(bearer.token, now());
    deps.observe?.tokenCache?.(cached === undefined ? 'miss' : 'hit');
    if (cached !== undefined) return cached;
    try {
      const claims = await verify(bearer.token);
      const context = mapClaims(claims);
      // The context is frozen and depends only on the token and this handler's config.
      cache.set(bearer.token, context, timesOf(claims), now());
      return context;
    } catch (error) {
      // Anything unexpected (a bug, a library surprise) is still a 401, never a 500.
      throw translateJoseError(error);
    }
  }

  return Object.freeze({ method: 'jwt' as const, authenticate });
}
