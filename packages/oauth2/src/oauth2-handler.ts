import { resolve } from 'node:path';
import {
  bearerError,
  ConfigError,
  DEFAULTS,
  createClaimsMapper,
  isAuthError,
  readBearerToken,
  readSecretFile,
  redactUrl,
  verifiedClaims,
  type AuthConfig,
  type AuthContext,
  type AuthFailure,
  type AuthHandler,
  type AuthRequest,
  type BearerToken,
  type HandlerDeps,
  type KeyState,
  type SecuritySchemePart,
} from '@authlayer/core';
import { createAnswerCache, digestOf, type AnswerCacheOptions } from './answer-cache.js';
import { checkAnswer } from './check-answer.js';
import { createIntrospect } from './introspect.js';
import { createEndpointSource } from './introspection-endpoint.js';
import {
  createConcurrencyGate,
  GateTimeout,
  INTROSPECTION_LIMITS,
  LASTING_REFUSALS,
  withCooldown,
  type IntrospectionLimitsOptions,
} from './introspection-limits.js';
import { oauth2Of, type OAuth2Config } from './config/oauth2-section.js';
import { createProviderHealth } from './provider-health.js';
import { createModeSenderConstraint, type PresentedAs } from '@authlayer/sender-constraint';
import { connectSharedAnswers } from './shared-answers.js';

/** {@link HandlerDeps} plus the optional bounds of the caches and of the load on the provider (not in the config file). */
export interface OAuth2HandlerDeps extends HandlerDeps {
  readonly answerCache?: AnswerCacheOptions;
  /** Concurrency, refusal cache and discovery cool-down; see {@link INTROSPECTION_LIMITS}. */
  readonly limits?: IntrospectionLimitsOptions;
}

const PATH = 'auth.oauth2';

/** What an active answer says of a token: the caller, and its confirmation (`cnf`) if any. */
interface Known {
  readonly context: AuthContext;
  readonly cnf: unknown;
}

/**
 * Creates the handler of `auth.mode: oauth2` (RFC 7662 token introspection). Start-up work: the
 * client secret is read from `client_secret_env` (unset or empty → ConfigError naming the
 * variable). Nothing is fetched at start-up.
 *
 * `authenticate` reads `Authorization: Bearer <token>` and asks the introspection endpoint about
 * it; an `active` answer that passes `exp`, `nbf`, `iss` and `aud` is mapped to an `AuthContext`
 * with `method: "oauth2"` (the shared claims mapping of core). Active answers are kept for
 * `cache_seconds`, never past `exp`, keyed by a SHA-256 digest of the token; lasting refusals
 * (inactive, expired, wrong `iss`/`aud`) for 10 s (never more than `cache_seconds`); failures are
 * never kept. Concurrent requests with the same token share one introspection request; at most
 * 32 introspection requests are in flight (a request whose turn does not come within `timeout_ms`
 * gets `key_unavailable`); a discovery document that could not be used is not fetched again for
 * 30 s (see {@link INTROSPECTION_LIMITS}). A provider that is down, slow past `timeout_ms`, or
 * answers anything but a 200 with a JSON object → 401 `key_unavailable`. Rejects with
 * `AuthError` and nothing else.
 *
 * With `cache_store`, active answers are also kept in that Redis (through `deps.connectStore`)
 * for every replica, and read there before the provider is asked; Redis failing is a miss.
 *
 * With `dpop` or `certificate_bound` on, the answer's `cnf` binds the token (`cnf.jkt`: a DPoP
 * proof of its key, `cnf["x5t#S256"]`: that client certificate), checked on every request, a
 * cached answer included (see `createSenderConstraint` of `@authlayer/sender-constraint`).
 *
 * @throws ConfigError when `client_id` or the client secret is missing, or `cache_store` is set
 *   and `deps.connectStore` is not given.
 * @throws TypeError when called without a config or deps.
 * @example
 * const config = parseAuthConfig({ auth: { mode: 'oauth2', oauth2: { introspection_url: 'https://sso.example.com/introspect', client_id: 'api' } } });
 * const handler = await createOAuth2Handler(config, { env: process.env, logger: console });
 * const context = await handler.authenticate({ headers: req.headers });
 */
export async function createOAuth2Handler(config: AuthConfig, deps: OAuth2HandlerDeps): Promise<AuthHandler> {
  if (typeof config?.modes !== 'object' || typeof deps?.env !== 'object' || typeof deps.logger !== 'object') {
    throw new TypeError('createOAuth2Handler(config, deps) needs a parsed config and { env, logger }');
  }
  const settings = oauth2Of(config, deps);
  const clientSecret = readSecret(settings, deps.env);
  const now = deps.now ?? Date.now;
  const limits = { ...INTROSPECTION_LIMITS, ...deps.limits };
  const endpoint = withCooldown(createEndpointSource(settings), limits.discoveryCooldownSeconds * 1000, now);
  const gate = createConcurrencyGate(limits.maxConcurrent, limits.maxWaitMs ?? settings.timeoutMs);
  const introspect = createIntrospect({ ...settings, clientId: settings.clientId as string, clientSecret });
  const health = createProviderHealth(deps.logger);
  const mapClaims = createClaimsMapper('oauth2', settings.claims, config.roles, {
    readScp: config.resource !== null || config.mcp !== null,
  });
  const cache = createAnswerCache<Known>(settings.cacheSeconds, deps.answerCache);
  // The reason and its sentence (audience_strict has its own), so a cached refusal reads as the first.
  const refusals = createAnswerCache<readonly [AuthFailure, string]>(
    Math.min(limits.refusalCacheSeconds, settings.cacheSeconds),
    deps.answerCache,
  );
  const shared = await connectSharedAnswers(settings, deps);
  let busy = false;
  const inFlight = new Map<string, Promise<Known>>();
  // The answer's `cnf` binds the token (RFC 9449 §6.2, RFC 8705 §3.2); oauth2 has no leeway of its
  // own, so a proof's `iat` gets jwt's default.
  const constraint = createModeSenderConstraint(
    'oauth2.dpop-replay-cache',
    settings,
    DEFAULTS.senderConstraint.oauth2LeewaySeconds,
    config,
    deps,
    now,
  );

  async function introspectNow(token: string): Promise<Record<string, unknown>> {
    const url = await endpoint();
    return gate.run(() => introspect(url, token));
  }

  async function lookUp(token: string, key: string): Promise<Known> {
    // Another replica's answer is checked as a fresh one is; it says nothing of the provider's health.
    const known = await shared?.get(key);
    try {
      const answer = known ?? (await introspectNow(token));
      const exp = checkAnswer(answer, settings, now());
      if (known === undefined) {
        health.succeeded();
        busy = false;
      }
      const found = { context: mapClaims(answer), cnf: answer.cnf };
      cache.set(key, found, exp, now());
      // Kept before answering, so a replica asked next finds it.
      const ttl = Math.floor(Math.min(settings.cacheSeconds * 1000, (exp ?? Infinity) - now()));
      if (known === undefined && shared !== null && ttl > 0) await shared.set(key, answer, ttl);
      return found;
    } catch (error) {
      if (isAuthError(error)) {
        if (known === undefined) health.succeeded();
        if (LASTING_REFUSALS.has(error.reason)) refusals.set(key, [error.reason, error.message], null, now());
        throw error;
      }
      if (error instanceof GateTimeout) {
        // The provider is slow for this load, not down: say so once, keep its health as it is.
        if (!busy)
          deps.logger.warn(
            `auth.oauth2: ${gate.active} introspections in flight; requests that waited past timeout_ms are refused`,
          );
        busy = true;
      } else health.failed(error);
      throw bearerError('key_unavailable');
    }
  }

  function knownOf(bearer: BearerToken): Promise<Known> {
    if (bearer.kind === 'absent') return Promise.reject(bearerError('credentials_missing'));
    if (bearer.kind === 'malformed') return Promise.reject(bearerError('token_malformed'));
    const key = digestOf(bearer.token);
    const cached = cache.get(key, now());
    if (cached !== undefined) return Promise.resolve(cached);
    const refused = refusals.get(key, now());
    if (refused !== undefined) return Promise.reject(bearerError(...refused));
    // One introspection request per token at a time: concurrent requests share its answer.
    let pending = inFlight.get(key);
    if (pending === undefined) {
      pending = lookUp(bearer.token, key).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  }

  function authenticate(request: AuthRequest): Promise<AuthContext> {
    if (constraint === null) return knownOf(readBearerToken(request)).then(({ context }) => context);
    const dpopToken = constraint.readDpopToken(request);
    const presented: PresentedAs = dpopToken === undefined ? 'bearer' : 'dpop';
    const bearer = dpopToken ?? readBearerToken(request);
    // A cached answer still has its binding checked: the proof and the certificate are per request.
    return knownOf(bearer)
      .then(async ({ context, cnf }) => {
        await constraint.check(request, presented, (bearer as { readonly token: string }).token, cnf);
        return context;
      })
      .catch((error: unknown) => {
        throw constraint.rechallenge(error, presented);
      });
  }

  const describe = () => ({
    introspection_url: settings.introspectionUrl === null ? null : redactUrl(settings.introspectionUrl),
    discovery: settings.discovery,
    issuer: settings.issuer,
    client_id: settings.clientId,
    // The variables this mode reads, as --check lists them (set, or start-up would have failed).
    key_material: { [secretSource(settings)]: 'set' },
    auth_method: settings.authMethod,
    cache_seconds: settings.cacheSeconds,
    timeout_ms: settings.timeoutMs,
    cache_store: settings.cacheStore === null ? null : redactUrl(settings.cacheStore),
  });
  const readiness = () => ({ ready: health.state() !== 'unavailable', keys: health.state() as KeyState });
  return Object.freeze({
    method: 'oauth2' as const,
    authenticate,
    describe,
    readiness,
    // Any Bearer token may be an opaque one: its shape tells nothing more.
    recognize: (request: AuthRequest) =>
      (constraint?.readDpopToken(request) ?? readBearerToken(request)).kind === 'absent'
        ? undefined
        : ('likely' as const),
    summary: () => summaryOf(settings),
    keyFiles: settings.clientSecretFile === null ? [] : [resolve(settings.clientSecretFile)],
    securitySchemes: () => constraint?.securitySchemes(OAUTH2_SCHEME) ?? [OAUTH2_SCHEME],
    ...(constraint === null ? {} : { senderConstraint: () => constraint.config }),
    authorizationServers: () => (settings.issuer === null ? [] : [settings.issuer]),
    // The answer's `exp`, checked already (no leeway: an answer at or past `exp` is refused).
    credentialExpiry: (context: AuthContext) => {
      const exp = verifiedClaims(context)?.exp;
      return typeof exp === 'number' && Number.isFinite(exp)
        ? { expiresAt: exp, refusedFrom: exp * 1000, reason: 'token_expired' as const }
        : null;
    },
  });
}

const OAUTH2_SCHEME: SecuritySchemePart = Object.freeze({
  name: 'BearerAuth',
  type: 'http',
  scheme: 'bearer',
  // Opaque tokens: no format a client could rely on.
  bearerFormat: null,
  description: 'OAuth2 access token, checked at the provider (RFC 7662)',
});

/** The start-up line's part: the endpoint (redacted) and the secret's variable, never its value. */
function summaryOf(settings: OAuth2Config): string {
  const { introspectionUrl, issuer, clientSecretFile } = settings;
  const endpoint =
    introspectionUrl !== null ? redactUrl(introspectionUrl) : `the discovery document of ${redactUrl(String(issuer))}`;
  const from = clientSecretFile === null ? 'environment variable' : 'file';
  return `introspection at ${endpoint}, client secret from ${from} ${secretSource(settings)}`;
}

/** The variable, or the file's absolute path, that holds the client secret. */
function secretSource({ clientSecretEnv, clientSecretFile }: OAuth2Config): string {
  return clientSecretFile === null ? clientSecretEnv : resolve(clientSecretFile);
}

/** `client_secret_file` when set (read whole, one trailing newline dropped), else `client_secret_env`. */
function readSecret(settings: OAuth2Config, env: HandlerDeps['env']): string {
  if (settings.clientSecretFile !== null)
    return readSecretFile(settings.clientSecretFile, `${PATH}.client_secret_file`);
  const name = settings.clientSecretEnv;
  const value = env[name];
  if (value === undefined || value === '') {
    throw new ConfigError({ path: `${PATH}.client_secret_env`, message: `the variable ${name} is unset or empty` });
  }
  return value;
}
