import {
  bearerError,
  isParsedAuthConfig,
  parseAuthConfig,
  type AuthConfig,
  type AuthContext,
  type AuthMethod,
  type AuthHandler,
  type AuthMode,
  type HandlerDeps,
  type HandlerDescription,
  type HandlerObserver,
  type HandlerReadiness,
  type Logger,
  type RevocationCheck,
} from '@authlayer/core';
import { authenticateNowOf, resourceMetadataUrl } from '@authlayer/core/internal';
import type { NextFunction, Request, Response } from 'express';
import { authorizeByPlan, createAccessMiddleware, type AccessFlow } from './access/access-middleware.js';
import { compileTable, matchEntries, planFor } from './access/access-table.js';
import { unmatchedKeys } from './access/unmatched-rules.js';
import { authenticateRequest, type AuthenticateDeps } from './authenticate-request.js';
import { combineHandlers } from './combine-handlers.js';
import { credentialHeaders } from './credentials.js';
import type { DecisionListener } from './decision.js';
import { loadModeHandler, type ImportModule, type LoadedMode } from './load-mode.js';
import { loadRateLimits } from './load-rate-limits.js';
import { consoleLogger } from './logger.js';
import type { Revocation, RevokeOptions } from './revocation/revocation-entry.js';
import { createStoreConnector } from './shared-store/store-connector.js';
import {
  createRevocationFlow,
  readinessWith,
  revocationApi,
  type AuthReadiness,
} from './revocation/revocation-flow.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The caller's identity, set by the authlayer middleware once the request is authenticated. */
      auth?: AuthContext;
    }
  }
}

/** What the `access` table asks of one route (see `AuthMiddleware.accessFor`). */
export interface RouteAccess {
  /** `none`: public; `optional`: anonymous allowed; `required`: a caller must authenticate. */
  readonly authentication: 'none' | 'optional' | 'required';
  /** A rule object or `deny` applies, so an authenticated caller may get 403. */
  readonly mayRefuse: boolean;
}

/** Options of {@link createAuthMiddleware}; every one has a default. */
export interface AuthMiddlewareOptions {
  /** Where key material is read from. Default `process.env`. */
  readonly env?: HandlerDeps['env'];
  /** Default: one line per message on stderr. */
  readonly logger?: Logger;
  /** The clock, in milliseconds. Default `Date.now`. */
  readonly now?: () => number;
  /** How the mode package is imported. Default: a dynamic `import()` by package name. */
  readonly importModule?: ImportModule;
  /** Counters the handler moves (key fetches, token cache), for metrics. Default: none. */
  readonly observe?: HandlerObserver;
  /**
   * Let a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) through
   * `auth` and `auth.optional` unauthenticated, for apps whose CORS handler comes after them.
   * Default `false`: a preflight is a request like any other (mount `cors()` before `auth`, or
   * mark the route `public`/`optional` in the `access` table).
   */
  readonly passPreflight?: boolean;
  /** Called once per authentication decision (audit line, metrics); see `AuthDecision`. */
  readonly onDecision?: DecisionListener;
  /**
   * Asked on every authenticated request, cache hits included, with the AuthContext and the
   * token's verified claims: `true` refuses it with 401 `token_revoked` (as does a hook that
   * throws). JWT mode asks it; API key mode has no tokens to revoke and does not.
   */
  readonly isRevoked?: RevocationCheck;
}

/**
 * An Express middleware whose call signature is generic in the route's parameters, so that
 * `app.get('/users/:id', auth, (req) => req.params.id)` keeps `id: string` (a plain
 * `RequestHandler` would widen every parameter to `string | string[]`).
 */
export interface RouteMiddleware {
  <P = Request['params']>(req: Request<P>, res: Response, next: NextFunction): void;
}

/** The middleware, which also says what it is: the configured mode and the active handler. */
export interface AuthMiddleware extends RouteMiddleware {
  readonly config: AuthConfig;
  /** The configured mode (the first, when `auth.mode` is a list). */
  readonly mode: AuthMode;
  /** Every configured mode, in order. */
  readonly modes: readonly AuthMode[];
  /** `none` when the mode's package is missing (or API keys are disabled) and nothing is checked. */
  readonly method: AuthMethod;
  /**
   * The active handler (several modes combined into one): what it says about itself (`summary`,
   * `securitySchemes`, `recognize`) serves start-up lines and OpenAPI documents.
   */
  readonly handler: AuthHandler;
  /** The modes that authenticate, in order: `['none']` when nothing is checked. */
  readonly methods: readonly AuthMethod[];
  /**
   * The same middleware, but a request without any credential goes on with the anonymous context
   * (`method: "none"`); a credential that is present but wrong still gets the 401.
   */
  readonly optional: RouteMiddleware;
  /**
   * The `access` table as one middleware: mount it before the routes (`app.use(auth.access)`),
   * and each request is authenticated and authorized as every table entry that matches it asks
   * (patterns matched as Express 5's router matches routes); `access.default` decides the rest.
   */
  readonly access: RouteMiddleware;
  /**
   * The `access` keys that match no route `app` registered (call it after the routes): each is a
   * rule that guards nothing, most likely a typo.
   */
  unmatchedRules(app: unknown): string[];
  /**
   * `auth.access` for a request that describes another one (a proxy's forward-auth call): the
   * table is applied to `method` and the request's URL (set `req.url` to the original URI first),
   * with the request's own credentials. Answers as `auth.access` does, or calls `next()`.
   */
  accessAs(method: string, req: Request, res: Response, next: NextFunction): void;
  /**
   * What the table asks of a request to `method` and `path` (for documentation such as OpenAPI):
   * the authentication it needs, and whether a rule or `deny` can refuse an authenticated caller.
   */
  accessFor(method: string, path: string): RouteAccess;
  /**
   * RFC 9728 protected resource metadata from the config's `resource` section: where to serve it
   * (`url`) and the JSON (`document`); `null` without a `resource` section.
   */
  resourceMetadata(): { readonly url: string; readonly document: Readonly<Record<string, unknown>> } | null;
  /** What the active handler says about itself (for `--check`); never a secret. */
  describe(): HandlerDescription;
  /**
   * Whether the active handler can verify now (for `/readyz`); with `revocation.store`, also the
   * list's state (`revocations`), and not ready until the list was loaded once.
   */
  readiness(): AuthReadiness;
  /**
   * Revokes `jti:<id>` (one token) or `sub:<id>` (every credential of a subject, an API key client
   * by its name) in `revocation.store` for `ttlSeconds` (default 24 h, at most 30 days): every
   * replica refuses it with 401 `token_revoked` within a second, cache hits included. Revoking an
   * entry again replaces its end. Rejects with TypeError for a bad entry or ttl, with Error
   * without `revocation.store` or when Redis does not take the change.
   */
  revoke(entry: string, options?: RevokeOptions): Promise<Revocation>;
  /** Ends a revocation early on every replica; `false` when the entry was not in the list. Rejects as `revoke`. */
  unrevoke(entry: string): Promise<boolean>;
  /** The revocations in force, read from Redis, soonest to end first. Rejects as `revoke`. */
  revocations(): Promise<Revocation[]>;
  /** Releases what the middleware holds open (the Redis connections); for shutdown. */
  close(): Promise<void>;
}

const ALWAYS_READY: HandlerReadiness = Object.freeze({ ready: true });
const NOTHING: HandlerDescription = Object.freeze({});

/**
 * Creates the authentication middleware for a config: loads the package of each mode `auth.mode`
 * names, checks the key material, and fails fast. The middleware reads headers only, never the
 * body; on success it sets `req.auth`, on failure it answers 401 itself with the contract's JSON
 * body and `WWW-Authenticate`. A CORS preflight passes untouched (`req.auth` unset), so the app's
 * CORS handler answers it. `auth.optional` lets requests without credentials through anonymously.
 *
 * @param config - a config from `loadConfig`/`parseAuthConfig`, or the same shape as a plain object
 * @throws ConfigError on a bad config or missing key material (or a missing mode package with
 *   `auth.fallback: refuse`); Error when a mode package is broken;
 *   TypeError when `options.isRevoked` is given but not a function
 * @example
 * const auth = await createAuthMiddleware(await loadConfig('service.yaml'));
 * app.post('/invoke', auth, express.json(), (req, res) => res.json(req.auth));
 * app.get('/me', auth.optional, (req, res) => res.json(req.auth));
 */
export async function createAuthMiddleware(
  config: AuthConfig | object,
  options: AuthMiddlewareOptions = {},
): Promise<AuthMiddleware> {
  if (options.isRevoked !== undefined && typeof options.isRevoked !== 'function') {
    throw new TypeError('createAuthMiddleware: options.isRevoked must be a function');
  }
  const parsed = isParsedAuthConfig(config) ? config : parseAuthConfig(config);
  const logger = options.logger ?? consoleLogger;
  const stores = createStoreConnector(logger);
  const deps: HandlerDeps = {
    env: options.env ?? process.env,
    logger,
    now: options.now ?? Date.now,
    ...(options.observe === undefined ? {} : { observe: options.observe }),
    ...(options.isRevoked === undefined ? {} : { isRevoked: options.isRevoked }),
    connectStore: stores.connectStore,
  };
  const loaded = await loadModeHandler(parsed, deps, options.importModule);
  const { handler, methods } = loaded;
  const revocation =
    parsed.revocation === null
      ? null
      : await createRevocationFlow(parsed.revocation, loaded.handlers, logger, deps.now ?? Date.now);
  // Every path to a handler goes through the revocation list, when there is one.
  const authenticateOf = (chosen: AuthHandler) => {
    const authenticate = authenticateNowOf(chosen);
    return revocation === null ? authenticate : revocation.wrap(authenticate);
  };
  const limits = parsed.rateLimit === null ? null : await loadRateLimits(parsed.rateLimit, logger, deps.now);
  const flow = {
    method: handler.method,
    logger,
    limits,
    trustProxy: parsed.rateLimit?.trustProxy ?? false,
    onDecision: options.onDecision,
    passPreflight: options.passPreflight === true,
    ...(parsed.resource === null ? {} : { resourceMetadata: resourceMetadataUrl(parsed.resource.identifier) }),
    ...(handler.limitsOf === undefined ? {} : { limitsOf: handler.limitsOf.bind(handler) }),
  };
  // One deps object per middleware, made once; a synchronous answer calls next() in this turn.
  const middleware = (deps: AuthenticateDeps): RouteMiddleware => {
    const handle = (req: Request, res: Response, next: NextFunction) => {
      let pending: void | Promise<void>;
      try {
        pending = authenticateRequest(deps, req, res, next);
      } catch (error) {
        // An audit listener that throws is a bug of the app: it becomes a 500, never a crash.
        return next(error);
      }
      pending?.catch(next);
    };
    // It reads no route parameter, so it fits a route of any parameters (see RouteMiddleware).
    return handle as RouteMiddleware;
  };
  const authenticate = authenticateOf(handler);
  const optionalHeaders = credentialHeaders(handler);
  const table = compileTable(parsed.access);
  const restricted = await restrictedHandlers(parsed, loaded);
  const accessFlows = new Map<string, AccessFlow>();
  const flowFor = (optional: boolean, modes: readonly AuthMode[] | null): AccessFlow => {
    const allowed = modes === null ? '*' : parsed.modes.filter((mode) => modes.includes(mode)).join(',');
    const key = `${optional}:${allowed}`;
    let made = accessFlows.get(key);
    if (made === undefined) {
      const deps: AuthenticateDeps = {
        ...flow,
        // A preflight to a route of the table is answered as the table says (public, optional).
        passPreflight: false,
        authenticate: authenticateOf(restricted.get(allowed) ?? handler),
        optional: optional ? optionalHeaders : null,
        authorize: authorizeByPlan,
        reportOnly: parsed.accessPolicy.reportOnly,
      };
      made = { deps, run: middleware(deps) };
      accessFlows.set(key, made);
    }
    return made;
  };
  const access = createAccessMiddleware({ access: parsed.access, policy: parsed.accessPolicy, flowFor });
  return Object.assign(middleware({ ...flow, authenticate, optional: null }), {
    config: parsed,
    mode: parsed.mode,
    modes: parsed.modes,
    method: handler.method,
    handler,
    methods,
    optional: middleware({ ...flow, authenticate, optional: optionalHeaders }),
    access: access.middleware as RouteMiddleware,
    accessAs: access.as,
    unmatchedRules: (app: unknown) => unmatchedKeys(table, app),
    resourceMetadata: () => resourceMetadataOf(parsed, handler),
    accessFor: (method: string, path: string): RouteAccess => {
      const plan = planFor(matchEntries(table, method, path), parsed.accessPolicy.default ?? 'authenticated');
      return { authentication: plan.authentication, mayRefuse: plan.denied || plan.rules.length > 0 };
    },
    describe: () => handler.describe?.() ?? NOTHING,
    readiness: () => readinessWith(handler.readiness?.() ?? ALWAYS_READY, revocation),
    ...revocationApi(revocation),
    close: async () => {
      limits?.close();
      revocation?.store.close();
      stores.close();
    },
  });
}

/**
 * A handler for each subset of `auth.mode` that a route's `modes` may leave (keyed by the modes,
 * comma-separated, in `auth.mode`'s order): a credential of a mode outside it is answered as no
 * credential at all. A subset whose packages are all missing refuses every request.
 */
async function restrictedHandlers(config: AuthConfig, loaded: LoadedMode): Promise<Map<string, AuthHandler>> {
  const byKey = new Map<string, AuthHandler>();
  const all = config.modes;
  for (let mask = 0; mask < 1 << all.length; mask += 1) {
    const subset = all.filter((_, index) => (mask & (1 << index)) !== 0);
    const allowed = loaded.handlers.filter((candidate) => (subset as readonly string[]).includes(candidate.method));
    let restricted: AuthHandler;
    if (allowed.length === 0) restricted = refuseAll;
    else if (allowed.length === loaded.handlers.length) restricted = loaded.handler;
    else restricted = await combineHandlers(loaded.handlers, config, subset);
    byKey.set(subset.join(','), restricted);
  }
  return byKey;
}

/**
 * RFC 9728 §2: the resource, the issuers the modes accept tokens of, every scope the `access`
 * table names, how a token is sent (an Authorization header only), and the DPoP algorithms and
 * binding requirements the modes' `dpop` and `certificate_bound` imply.
 */
function resourceMetadataOf(config: AuthConfig, handler: AuthHandler) {
  const { resource } = config;
  if (resource === null) return null;
  const scopes = new Set<string>();
  for (const value of Object.values(config.access)) {
    if (typeof value !== 'object') continue;
    for (const requirement of [value, ...value.any]) for (const scope of requirement.scopes) scopes.add(scope);
  }
  const constraint = handler.senderConstraint?.();
  const document = {
    resource: resource.identifier,
    authorization_servers: handler.authorizationServers?.() ?? [],
    scopes_supported: [...scopes],
    bearer_methods_supported: ['header'],
    ...(resource.name === null ? {} : { resource_name: resource.name }),
    ...(resource.documentation === null ? {} : { resource_documentation: resource.documentation }),
    // RFC 9728 §2: how tokens must be bound to their sender, as the modes say.
    ...(constraint === undefined || constraint.dpop === 'off'
      ? {}
      : {
          dpop_signing_alg_values_supported: constraint.dpopAlgorithms,
          dpop_bound_access_tokens_required: constraint.dpop === 'required',
        }),
    ...(constraint === undefined || constraint.certificateBound === 'off'
      ? {}
      : { tls_client_certificate_bound_access_tokens: true }),
  };
  return { url: resourceMetadataUrl(resource.identifier), document };
}

const NO_CREDENTIALS = bearerError('credentials_missing');
const refuseAll: AuthHandler = Object.freeze({
  method: 'none',
  authenticate: () => Promise.reject(NO_CREDENTIALS),
});
