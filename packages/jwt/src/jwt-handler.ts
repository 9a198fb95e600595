import { resolve } from 'node:path';
import {
  bearerError,
  fromAuthenticateNow,
  type AuthConfig,
  type AuthContext,
  type AuthHandler,
  type AuthRequest,
  type BearerToken,
  type HandlerDeps,
  type MaybePromise,
  type SecuritySchemePart,
  verifiedClaims,
} from '@authlayer/core';
import { isPromiseLike, isToken68 } from '@authlayer/core/internal';
import { createModeSenderConstraint, type PresentedAs } from '@authlayer/sender-constraint';
import { describeProviders, readinessOf, summarizeProviders } from './handler-status.js';
import type { JwksOptions } from './keys/remote-key-set.js';
import { createProvider, type Provider, type Verified } from './provider.js';
import { readTokenCandidate } from './read-token.js';
import { jwtOf } from './config/jwt-section.js';
import { createTokenRecognizer } from './recognize-token.js';
import { createProviderSelector } from './select-provider.js';
import type { TokenCacheOptions } from './token-cache.js';
import { translateJoseError } from './verify/translate-jose-error.js';
import { warnAboutOpenClaims } from './warn-open-claims.js';

const JWT_SCHEME: SecuritySchemePart = Object.freeze({
  name: 'BearerAuth',
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'JWT access token',
});

/** {@link HandlerDeps} plus the optional tuning of the remote key set (not in the config file). */
export interface JwtHandlerDeps extends HandlerDeps {
  /** Timeout, cool-down and cache age of remote key sets; see {@link JwksOptions}. */
  readonly jwks?: JwksOptions;
  /** Bounds of the cache of verified tokens; see {@link TokenCacheOptions}. */
  readonly tokenCache?: TokenCacheOptions;
}

/**
 * Creates the handler of `auth.mode: jwt`. Start-up work happens here: static keys are read
 * and checked against `algorithms`, remote key sets are prepared (fetched on first use, so an
 * unreachable provider does not stop the service).
 *
 * `authenticate` reads `Authorization: Bearer <token>` (or the configured `cookie` when there
 * is no Authorization header), picks the provider by the token's `iss` when `providers` is set,
 * verifies the token, and maps its claims to an `AuthContext` with `method: "jwt"`. It rejects
 * with `AuthError` (401) and nothing else. A token verified before is answered from a bounded
 * cache of its provider while a fresh verification would still accept it (see
 * `createTokenCache`); failures are never cached. `deps.isRevoked` is asked on every success,
 * cache hits included; `true` (or a hook that fails) refuses with `token_revoked`.
 *
 * `readiness()` is ready when every issuer's keys can verify now (static, fresh or stale), and
 * starts a due fetch in the background; `describe()` lists the issuers and key variables.
 *
 * @throws ConfigError when the `auth.jwt` rules are not met (for a config made for another mode),
 *   or the key material is missing or cannot serve the configured algorithms.
 * @throws TypeError when called without a config or deps, when `deps.isRevoked` is not a
 *   function, or when `deps.tokenCache` holds a bound that is not a non-negative integer.
 * @example
 * const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { issuer: 'https://idp.example.com', discovery: true } } });
 * const handler = await createJwtHandler(config, { env: process.env, logger: console });
 * const context = await handler.authenticate({ headers: req.headers });
 */
export async function createJwtHandler(config: AuthConfig, deps: JwtHandlerDeps): Promise<AuthHandler> {
  if (typeof config?.modes !== 'object' || typeof deps?.env !== 'object' || typeof deps.logger !== 'object') {
    throw new TypeError('createJwtHandler(config, deps) needs a parsed config and { env, logger }');
  }
  if (deps.isRevoked !== undefined && typeof deps.isRevoked !== 'function')
    throw new TypeError('isRevoked must be a function');
  const settings = jwtOf(config, deps);
  const now = deps.now ?? Date.now;
  const several = settings.providers.length > 0;
  const configs = several ? settings.providers : [settings];
  const providers = await Promise.all(
    configs.map((jwt, index) =>
      createProvider(
        jwt,
        config.roles,
        { ...deps, now, oneOfSeveral: several, readScp: config.resource !== null || config.mcp !== null },
        several ? `auth.jwt.providers[${index}]` : 'auth.jwt',
      ),
    ),
  );
  // After the key material was read: a broken config fails without a warning first.
  warnAboutOpenClaims(configs, several, deps.logger);
  const select = createProviderSelector(providers, several);
  const revoked = createRevocationCheck(deps);
  const jwt = settings;
  const constraint = createModeSenderConstraint('jwt.dpop-replay-cache', jwt, jwt.leewaySeconds, config, deps, now);

  // Synchronous for a cached token and a static key (see AuthHandler.authenticateNow), and without
  // a DPoP proof to check.
  function authenticateNow(request: AuthRequest): MaybePromise<AuthContext> {
    if (constraint === null) return authenticateToken(request, readTokenCandidate(request, jwt.cookie), 'bearer');
    const dpopToken = constraint.readDpopToken(request);
    const presented: PresentedAs = dpopToken === undefined ? 'bearer' : 'dpop';
    const rechallenge = (error: unknown): never => {
      throw constraint.rechallenge(error, presented);
    };
    try {
      const answer = authenticateToken(request, dpopToken ?? readTokenCandidate(request, jwt.cookie), presented);
      return isPromiseLike(answer) ? answer.then(undefined, rechallenge) : answer;
    } catch (error) {
      return rechallenge(error);
    }
  }

  function authenticateToken(request: AuthRequest, bearer: BearerToken, presented: PresentedAs) {
    if (bearer.kind === 'absent') throw bearerError('credentials_missing');
    if (bearer.kind === 'malformed') throw bearerError('token_malformed');
    const { token } = bearer;
    const hit = cachedIn(providers, token, now());
    // A cached token still has its binding checked: the proof and the certificate are per request.
    if (hit !== undefined) {
      deps.observe?.tokenCache?.('hit');
      return finish(request, presented, token, hit);
    }
    // Only a token that was never verified can be malformed (see readTokenCandidate).
    if (!isToken68(token)) throw bearerError('token_malformed');
    deps.observe?.tokenCache?.('miss');
    let provider: Provider;
    let verified: MaybePromise<Verified>;
    try {
      provider = select(token);
      verified = provider.verify(token);
    } catch (error) {
      // Anything unexpected (a bug, a library surprise) is still a 401, never a 500.
      throw translateJoseError(error);
    }
    if (!isPromiseLike(verified)) return accept(request, presented, provider, token, verified);
    return verified.then(
      (done) => accept(request, presented, provider, token, done),
      (error: unknown) => {
        throw translateJoseError(error);
      },
    );
  }

  /** A verified token: its binding, the revocation hook, then the cache may answer for it. */
  function accept(
    request: AuthRequest,
    presented: PresentedAs,
    provider: Provider,
    token: string,
    verified: Verified,
  ): MaybePromise<AuthContext> {
    const context = finish(request, presented, token, verified);
    if (isPromiseLike(context)) {
      return context.then((allowed) => {
        provider.remember(token, verified, now());
        return allowed;
      });
    }
    provider.remember(token, verified, now());
    return context;
  }

  /** The token's binding to this request (RFC 9449, RFC 8705), then the revocation hook. */
  function finish(request: AuthRequest, presented: PresentedAs, token: string, verified: Verified) {
    if (constraint === null) return revoked(verified);
    const bound = constraint.check(request, presented, token, verified.claims.cnf);
    return isPromiseLike(bound) ? bound.then(() => revoked(verified)) : revoked(verified);
  }

  return Object.freeze({
    method: 'jwt' as const,
    ...fromAuthenticateNow(authenticateNow),
    describe: () => describeProviders(providers),
    readiness: () => readinessOf(providers),
    recognize: createTokenRecognizer(settings.cookie, constraint?.readDpopToken),
    summary: () => summarizeProviders(providers, several),
    // A key read from a file reloads with `reload.watch` when the file changes.
    keyFiles: [
      ...new Set(configs.flatMap(({ publicKeyFile }) => (publicKeyFile === null ? [] : [resolve(publicKeyFile)]))),
    ],
    securitySchemes: () => constraint?.securitySchemes(JWT_SCHEME) ?? [JWT_SCHEME],
    ...(constraint === null ? {} : { senderConstraint: () => constraint.config }),
    authorizationServers: () => configs.flatMap((jwt) => (jwt.issuer === null ? [] : [jwt.issuer])),
    credentialExpiry: (context: AuthContext) => {
      const exp = verifiedClaims(context)?.exp;
      if (typeof exp !== 'number') return null;
      // The leeway of the provider that vouched (`issuer` is set only when there are several).
      const vouched = several ? providers.find((provider) => provider.config.issuer === context.issuer) : providers[0];
      const leeway = vouched?.config.leewaySeconds ?? jwt.leewaySeconds;
      return { expiresAt: exp, refusedFrom: (exp + leeway) * 1000, reason: 'token_expired' as const };
    },
  });
}

/** A token is in at most one provider's cache; with one provider this is one lookup. */
function cachedIn(providers: readonly Provider[], token: string, nowMs: number): Verified | undefined {
  for (const provider of providers) {
    const hit = provider.cached(token, nowMs);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/**
 * `deps.isRevoked` around a verified token: its context, or `token_revoked`; synchronous when
 * the hook answers synchronously. Fails closed: a hook that throws or rejects, or answers
 * anything but `false`, refuses.
 */
function createRevocationCheck({
  isRevoked,
  logger,
}: JwtHandlerDeps): (verified: Verified) => MaybePromise<AuthContext> {
  if (isRevoked === undefined) return ({ context }) => context;
  const failed = (error: unknown): never => {
    logger.error(`isRevoked failed (${error instanceof Error ? error.name : typeof error}); the request is refused`);
    throw bearerError('token_revoked');
  };
  return ({ context, claims }) => {
    const judge = (answer: unknown): AuthContext => {
      if (typeof answer !== 'boolean')
        logger.error(`isRevoked answered ${typeof answer}, not a boolean; the request is refused`);
      if (answer !== false) throw bearerError('token_revoked');
      return context;
    };
    let answer: unknown;
    try {
      answer = isRevoked(context, claims);
    } catch (error) {
      return failed(error);
    }
    return isPromiseLike(answer as MaybePromise<unknown>)
      ? (answer as Promise<unknown>).then(judge, failed)
      : judge(answer);
  };
}
