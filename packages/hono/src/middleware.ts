import type { AccessValue, AuthConfig, HandlerDescription, Logger } from '@authlayer/core';
import {
  consoleLogger,
  type AuthReadiness,
  type ReloadState,
  type RequestAuth,
  type Revocation,
  type RevokeOptions,
} from '@authlayer/engine';
import type { Context, MiddlewareHandler } from 'hono';
import { requireAccessWith } from './guards.js';
import { withMetadataRoute } from './metadata.js';
import { nodeOnlyWarning } from './node-only.js';
import { createOnRequest } from './on-request.js';
import { createEngine, engineRequestOf, type AccessRuleInput, type EngineOptions } from './request.js';
import { planOfRequest, unnamedKeys, unnamedKeysError, type HonoRoute } from './routes.js';
import { scopedOf } from './scope.js';

declare module 'hono' {
  interface ContextVariableMap {
    /**
     * The caller's identity, set by the authlayer middleware once the request is authenticated: the
     * `AuthContext` and the MCP SDK's `AuthInfo` fields, so `transport.handleRequest(c.req.raw,
     * { authInfo: c.get('auth') })` takes it as it is.
     */
    auth: RequestAuth | undefined;
  }
}

/** Options of `authlayer()`: the config, and the engine's options (every one has a default). */
export interface AuthlayerOptions extends Omit<EngineOptions, 'checkReload'> {
  /** A config from `loadConfig`/`parseAuthConfig`, or the same shape as a plain object. */
  readonly config: AuthConfig | object;
  /** Default: `console` (`info` to stdout, `warn` and `error` to stderr). */
  readonly logger?: Logger;
  /** Asked before a reloaded config serves; throwing refuses the reload as a broken config would. */
  readonly checkReload?: (next: { readonly config: AuthConfig }) => void;
}

/** An app whose routes `unmatchedRules` reads (a `Hono` instance: `app.routes`). */
export interface RoutedApp {
  readonly routes: readonly HonoRoute[];
}

/** The members of the middleware `authlayer()` returns; each answers for the config serving now. */
export interface AuthlayerMembers {
  /** The serving config. */
  readonly config: AuthConfig;
  /**
   * A middleware that applies one rule object (`{ roles: ['admin'] }`) to a route: 401 without an
   * authenticated caller, 403 when the caller lacks a name; as the other adapters' `requireAccess`.
   *
   * @throws TypeError at once for a word, an unknown field, or a rule that requires nothing
   */
  requireAccess(rule: AccessRuleInput | AccessValue | undefined): MiddlewareHandler;
  /**
   * The `access` keys that name no route of `app` (call it after the routes are registered). From
   * then on, a reloaded config with such a key is refused.
   */
  unmatchedRules(app: RoutedApp): string[];
  /** Replaces the config without a restart, as `AuthMiddleware.reload`. */
  reload(config?: AuthConfig | object): Promise<ReloadState>;
  /** The serving config's generation, when it was loaded, and the last reload's error. */
  reloadState(): ReloadState;
  /** Revokes `jti:<id>` or `sub:<id>` in `revocation.store` on every replica, as `AuthMiddleware.revoke`. */
  revoke(entry: string, options?: RevokeOptions): Promise<Revocation>;
  /** Ends a revocation early on every replica; `false` when the entry was not in the list. */
  unrevoke(entry: string): Promise<boolean>;
  /** The revocations in force, soonest to end first. */
  revocations(): Promise<Revocation[]>;
  /**
   * RFC 9728 protected resource metadata from the config's `resource` section: where it is served
   * (`url`) and the JSON (`document`); `null` without `resource`. The middleware answers `GET` and
   * `HEAD` of its path itself unless `resource.serve_metadata` is `false`.
   */
  resourceMetadata(): { readonly url: string; readonly document: Readonly<Record<string, unknown>> } | null;
  /** What the active handler says about itself; never a secret. */
  describe(): HandlerDescription;
  /** Whether the active handler can verify now, and the revocation list's state. */
  readiness(): AuthReadiness;
  /**
   * Holds a request whose answer outlives it (a WebSocket, a server-sent-events stream) and calls
   * `end(reason)` once when its authority ends: its credential's expiry, a revocation, a reload
   * after which its route would refuse it. Returns the release: call it when the connection closes.
   */
  hold(c: Context, end: (reason: string) => void): () => void;
  /** How many requests `hold` holds now. */
  readonly heldConnections: number;
  /** Releases the Redis connections and file watches. */
  close(): Promise<void>;
}

/** The middleware `authlayer()` returns, with its members. */
export type AuthlayerMiddleware = MiddlewareHandler & AuthlayerMembers;

/**
 * The authlayer middleware for Hono: authenticates each request and applies the `access` table to
 * the route Hono matched (the keys that name it by method and path as registered; `HEAD` as `GET`;
 * `access.default` for a request that reaches no route), answering 401/403/429 with the bytes of
 * the Express and Fastify adapters. `c.get('auth')` is the caller's `AuthContext` (with the MCP SDK's
 * `AuthInfo` fields). With `resource`, it answers the RFC 9728 document itself; with `mcp`, every
 * request to `mcp.endpoint` or below has its `Host` and `Origin` checked first, and a POST there its
 * body's MCP messages judged (then put back as `c.req.raw`'s body). The request path
 * uses web-standard `Request`, `Headers` and `Response` only.
 *
 * @throws ConfigError for a config that does not parse or whose key material is missing
 * @example
 * const auth = await authlayer({ config: await loadConfig('authlayer.yaml') });
 * app.use(auth);
 * app.get('/reports/:id', (c) => c.json({ by: c.get('auth')?.userId }));
 * if (auth.unmatchedRules(app).length > 0) throw new Error('access keys that name no route');
 */
export async function authlayer(options: AuthlayerOptions): Promise<AuthlayerMiddleware> {
  const { config, checkReload, ...engineOptions } = options;
  const logger = options.logger ?? consoleLogger;
  let routed: RoutedApp | null = null;
  const engine = await createEngine(config, {
    ...engineOptions,
    logger,
    checkReload: (next) => {
      if (routed !== null) {
        const unnamed = unnamedKeys(next.table.entries, withMetadataRoute(next, routed.routes));
        if (unnamed.length > 0) throw unnamedKeysError(unnamed);
      }
      checkReload?.({ config: next.config });
    },
  });
  const { current } = engine;
  const warning = nodeOnlyWarning(current().config);
  if (warning !== null) logger.warn(warning);

  const middleware = createOnRequest(current, logger);

  const members: AuthlayerMembers = {
    get config() {
      return current().config;
    },
    requireAccess: (rule) => requireAccessWith(current, () => logger, rule),
    unmatchedRules: (app) => {
      routed = app;
      return unnamedKeys(current().table.entries, withMetadataRoute(current(), app.routes));
    },
    reload: engine.reload,
    reloadState: engine.reloadState,
    revoke: engine.revoke,
    unrevoke: engine.unrevoke,
    revocations: engine.revocations,
    resourceMetadata: () => current().resourceMetadata(),
    describe: engine.describe,
    readiness: engine.readiness,
    hold: (c, end) => {
      const scoped = scopedOf(c);
      return engine.hold(
        {
          context: c.get('auth'),
          request: scoped?.request ?? engineRequestOf(c.req.raw),
          requestId: scoped?.scope.id() ?? null,
          // The route Hono matched, judged by each new generation's table as the middleware would.
          planOf: (generation) => planOfRequest(generation, c),
        },
        end,
      );
    },
    get heldConnections() {
      return engine.held();
    },
    close: () => engine.close(),
  };
  return Object.defineProperties(middleware, Object.getOwnPropertyDescriptors(members)) as AuthlayerMiddleware;
}
