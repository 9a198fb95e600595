import type { JwtProviderConfig } from './config/jwt-section.js';
import { createClaimsMapper, type AuthContext, type MaybePromise, type RoleConfig } from '@authlayer/core';
import { isPromiseLike } from '@authlayer/core/internal';
import { createKeySource, type KeySource, type KeySourceDeps } from './keys/key-source.js';
import { createTokenCache, type TokenCacheOptions } from './token-cache.js';
import { createTokenCheck } from './verify/check-token.js';
import { timesOf } from './verify/validate-claims.js';
import { createTokenVerifierNow, type VerifiedClaims } from './verify/verify-token.js';

/** A token that passed every check of its issuer: the caller's identity and the token's claims. */
export interface Verified {
  readonly context: AuthContext;
  readonly claims: VerifiedClaims;
}

/** How the tokens of one issuer are verified, checked, mapped and cached. */
export interface Provider {
  readonly config: JwtProviderConfig;
  /** The config path of this issuer (`auth.jwt`, `auth.jwt.providers[1]`). */
  readonly label: string;
  readonly keys: KeySource;
  /** A token verified before and still valid at `nowMs`, else `undefined`. */
  cached(token: string, nowMs: number): Verified | undefined;
  /**
   * Verifies `token` (signature, standard claims, `token_type`, `required_claims`) and maps its
   * claims: synchronously (a value or an AuthError thrown) with a static key, else a Promise.
   */
  verify(token: string): MaybePromise<Verified>;
  /** Lets the cache answer for `token` from now on (see `createTokenCache`). */
  remember(token: string, verified: Verified, nowMs: number): void;
}

/** What a provider needs from the handler. */
export interface ProviderDeps extends KeySourceDeps {
  readonly now: () => number;
  /** One of several issuers (`providers`): its contexts name it in `issuer`. */
  readonly oneOfSeveral?: boolean;
  readonly tokenCache?: TokenCacheOptions;
  /** Read `scp` when a token has no `scope` (see `ClaimsMapperOptions.readScp`). */
  readonly readScp?: boolean;
}

/**
 * Builds the verification of one issuer: its key source (start-up work: a static key is read
 * here), the verifier (fast path with jose's semantics), the `token_type` and `required_claims`
 * checks, its claims mapping and its own bounded cache (its leeway decides a cached token's
 * validity).
 *
 * @throws ConfigError from the key source.
 */
export async function createProvider(
  config: JwtProviderConfig,
  roles: readonly RoleConfig[],
  deps: ProviderDeps,
  label: string,
): Promise<Provider> {
  const keys = await createKeySource(config, deps, label);
  const verifyToken = createTokenVerifierNow(keys.getKey, { jwt: config, now: deps.now });
  const check = createTokenCheck(config);
  const mapClaims = createClaimsMapper('jwt', config.claims, roles, {
    issuer: deps.oneOfSeveral === true ? config.issuer : null,
    trustRoles: config.trustRoles,
    // For `max_age`: an `auth_time` ahead of this clock by more than the issuer's leeway is refused.
    leewaySeconds: config.leewaySeconds,
    readScp: deps.readScp === true,
  });
  const cache = createTokenCache<Verified>(config.leewaySeconds, deps.tokenCache);
  return {
    config,
    label,
    keys,
    // A cached token is not served past the key set's usable life (age + stale_keys_seconds),
    // judged by time: whether a refresh was attempted since does not matter.
    cached: (token, nowMs) => (keys.usable() ? cache.get(token, nowMs) : undefined),
    verify(token) {
      const finish = (parsed: VerifiedClaims): Verified => {
        // The payload was parsed for this token alone: frozen, the context keeps it without a
        // copy, and `isRevoked`, the binding check and the cache share that one object.
        const claims = Object.freeze(parsed);
        check?.(token, claims);
        // The context is frozen and depends only on the token and this provider's config.
        return { context: mapClaims(claims), claims };
      };
      const claims = verifyToken(token);
      return isPromiseLike(claims) ? claims.then(finish) : finish(claims);
    },
    remember: (token, verified, nowMs) => cache.set(token, verified, timesOf(verified.claims), nowMs),
  };
}
