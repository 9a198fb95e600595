import {
  AuthError,
  bearerChallenge,
  readBearerToken,
  type AuthConfig,
  type AuthContext,
  type AuthHandler,
  type AuthRequest,
  type HandlerDeps,
} from '@authlayer/core';
import { createKeySource } from './key-source.js';
import { createClaimsMapper } from './map-claims.js';
import type { JwksOptions } from './remote-key-set.js';
import { translateJoseError } from './translate-jose-error.js';
import { createTokenVerifier } from './verify-token.js';

/** {@link HandlerDeps} plus the optional tuning of the remote key set (not in the config file). */
export interface JwtHandlerDeps extends HandlerDeps {
  /** Timeout, cool-down and cache age of the `jwks_url` key set; see {@link JwksOptions}. */
  readonly jwks?: JwksOptions;
}

/**
 * Creates the handler of `auth.mode: jwt`. Start-up work happens here: the static key is read
 * and checked against `algorithms`, or the remote key set is prepared (it is fetched on first
 * use, so an unreachable `jwks_url` does not stop the service).
 *
 * `authenticate` reads `Authorization: Bearer <token>`, verifies the token, and maps its claims
 * to an `AuthContext` with `method: "jwt"`. It rejects with `AuthError` (401) and nothing else;
 * the error's `challenge` is the RFC 6750 `WWW-Authenticate` value.
 *
 * @throws ConfigError when the key material is missing or cannot serve the configured algorithms.
 * @throws TypeError when called without a config or deps.
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
  const verify = createTokenVerifier(key, { jwt: config.jwt, now: deps.now ?? Date.now });
  const mapClaims = createClaimsMapper(config.jwt.claims, config.roles);

  async function authenticate(request: AuthRequest): Promise<AuthContext> {
    const bearer = readBearerToken(request);
    if (bearer.kind === 'absent') throw new AuthError('credentials_missing', bearerChallenge('credentials_missing'));
    if (bearer.kind === 'malformed') throw new AuthError('token_malformed', bearerChallenge('token_malformed'));
    try {
      return mapClaims(await verify(bearer.token));
    } catch (error) {
      // Anything unexpected (a bug, a library surprise) is still a 401, never a 500.
      throw translateJoseError(error);
    }
  }

  return Object.freeze({ method: 'jwt' as const, authenticate });
}
