import { ConfigError, type JwtAlgorithm, type JwtConfig, type HandlerObserver, type Logger } from '@authlayer/core';
import type { CryptoKey, JWTVerifyGetKey } from 'jose';
import { createRemoteKeySet, type JwksOptions } from './remote-key-set.js';
import { loadStaticKeys } from './static-key.js';

/** What a key source needs from the handler's deps. */
export interface KeySourceDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly jwks?: JwksOptions;
  readonly observe?: HandlerObserver;
}

/**
 * The key resolver for `auth.jwt`: the remote key set at `jwks_url`, or the static key (PEM
 * public key or HMAC secret) in the variable that `public_key_env` names. The resolver is only
 * asked after jose has checked the token's `alg` against `algorithms`, and it never looks at the
 * header's `jku`, `x5u`, `jwk` or `x5c` (RFC 8725 §3.10).
 *
 * @throws ConfigError when neither or both sources are set, or the static key is unusable
 *   (see `loadStaticKeys`). An unreachable `jwks_url` is not an error here: it is fetched on use.
 */
export async function createKeySource(jwt: JwtConfig, deps: KeySourceDeps): Promise<JWTVerifyGetKey> {
  if ((jwt.jwksUrl === null) === (jwt.publicKeyEnv === null)) {
    throw new ConfigError({ path: 'auth.jwt', message: 'set exactly one of jwks_url and public_key_env' });
  }
  if (jwt.jwksUrl !== null) return createRemoteKeySet(jwt.jwksUrl, deps.logger, deps.jwks, deps.observe);
  const keys = await loadStaticKeys(jwt.publicKeyEnv as string, jwt.algorithms, deps.env);
  // jose has already refused any `alg` outside `algorithms`, and there is a key for each of those.
  return (header) => keys.get(header.alg as JwtAlgorithm) as CryptoKey;
}
