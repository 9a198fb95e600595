import type { AccessValue, AuthConfig, AuthContext, HandlerDescription, Logger } from '@authlayer/core';
import {
  consoleLogger,
  type AuthReadiness,
  type ReloadState,
  type Revocation,
  type RevokeOptions,
} from '@authlayer/engine';
import type { Context, MiddlewareHandler } from 'hono';
import { failed, responseOf } from './answer.js';
import { requireAccessWith } from './guards.js';
import { nodeOnlyWarning } from './node-only.js';
import { createEngine, engineRequestOf, judge, type AccessRuleInput, type EngineOptions } from './request.js';
import { planOfRequest, unnamedKeys, unnamedKeysError, type HonoRoute } from './routes.js';
import { newScope, scopedOf } from './scope.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The caller's identity, set by the authlayer middleware once the request is authenticated. */
    auth: AuthContext | undefined;
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
 * the Express and Fastify adapters. `c.get('auth')` is the caller's `AuthContext`. The request path
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
        const unnamed = unnamedKeys(next.table.entries, routed.routes);
        if (unnamed.length > 0) throw unnamedKeysError(unnamed);
      }
      checkReload?.({ config: next.config });
    },
  });
  const { current } = engine;
  const warning = nodeOnlyWarning(current().config);
  if (warning !== null) logger.warn(warning);

  const middleware: MiddlewareHandler = async (c, next) => {
    const generation = current();
    const request = engineRequestOf(c.req.raw, socketOf(c));
    const scope = newScope(c, request);
    let verdict: Awaited<ReturnType<typeof judge>>;
    try {
      verdict = await judge(generation, planOfRequest(generation, c), request, scope);
    } catch (error) {
      // Only an onDecision listener throws here.
      return failed(logger, error);
    }
    if (!verdict.pass) return responseOf(verdict.answer, verdict.headers);
    if (verdict.context !== undefined) c.set('auth', verdict.context);
    try {
      await next();
    } finally {
      // The held `allowed` decision is reported once the app answered (a guard may refuse before).
      scope.answered();
    }
    for (const [name, value] of verdict.headers) c.res.headers.set(name, value);
  };

  const members: AuthlayerMembers = {
    get config() {
      return current().config;
    },
    requireAccess: (rule) => requireAccessWith(current, () => logger, rule),
    unmatchedRules: (app) => {
      routed = app;
      return unnamedKeys(current().table.entries, app.routes);
    },
    reload: engine.reload,
    reloadState: engine.reloadState,
    revoke: engine.revoke,
    unrevoke: engine.unrevoke,
    revocations: engine.revocations,
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

/**
 * The connection of a request where the runtime gives one: `@hono/node-server` puts Node's request
 * in `c.env.incoming` (its socket's peer address feeds the failed-auth limit; a TLS socket, the
 * client certificate). Elsewhere none: the limits key on the caller, not its address.
 */
function socketOf(c: Context): Parameters<typeof engineRequestOf>[1] {
  const env = c.env as { incoming?: { socket?: Parameters<typeof engineRequestOf>[1] } } | undefined;
  return env?.incoming?.socket;
}
