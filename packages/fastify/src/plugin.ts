import type { AccessValue, AuthConfig, HandlerDescription, Logger } from '@authlayer/core';
import {
  openApiSecurity,
  type AuthReadiness,
  type EngineOptions,
  type OpenApiSecurity,
  type PolicyVerdict,
  type ReloadState,
  type RequestAuth,
  type Revocation,
  type RevokeOptions,
} from '@authlayer/engine';
import { createEngine } from '@authlayer/engine/internal';
import type { FastifyPluginAsync, FastifyRequest, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { appLogger } from './app-logger.js';
import { serveMetadata } from './metadata.js';
import { requireAccessWith, type AccessRuleInput } from './guards.js';
import { explainWith } from './explain.js';
import { addMcpHooks, addMcpHostCheck } from './mcp.js';
import { createPort } from './answer.js';
import { RouteBook } from './route-book.js';
import { createOnRequest } from './request.js';
import { planOfRequest, routePlanOf, unnamedKeys, unnamedKeysError } from './routes.js';
import { GENERATION, SCOPE } from './scope.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's identity and the MCP SDK's `AuthInfo` fields, set by the plugin once the request is authenticated. */
    auth?: RequestAuth;
  }
  interface FastifyInstance {
    /** What the authlayer plugin serves, and what changes it (see {@link AuthlayerApi}). */
    readonly authlayer: AuthlayerApi;
  }
}

/**
 * Options of the plugin: the config, and the engine's options (every one has a default), as
 * `createAuthMiddleware` takes them.
 */
export interface AuthlayerOptions extends Omit<EngineOptions, 'checkReload' | 'logger'> {
  /** A config from `loadConfig`/`parseAuthConfig`, or the same shape as a plain object. */
  readonly config: AuthConfig | object;
  /**
   * Default: Fastify's own logger (`app.log`); a warning or an error it would not write (the
   * default `Fastify()` has no logger) goes to stderr.
   */
  readonly logger?: Logger;
  /**
   * Asked before a reloaded config serves; throwing refuses the reload as a broken config would.
   * A reloaded config whose keys name no registered route is refused before this is asked.
   */
  readonly checkReload?: (next: { readonly config: AuthConfig; unmatchedRules(): string[] }) => void;
}

/** `app.authlayer`: each member answers for the config serving now (a reload replaces it). */
export interface AuthlayerApi {
  /** The serving config. */
  readonly config: AuthConfig;
  /** The security schemes of the serving modes, for `@fastify/swagger`'s `components.securitySchemes`. */
  readonly securitySchemes: OpenApiSecurity;
  /**
   * A `preHandler` that applies one rule object (`{ roles: ['admin'] }`) to a route: 401 without
   * an authenticated caller, 403 when the caller lacks a name; Express's `requireAccess`.
   *
   * @throws TypeError at once for a word, an unknown field, or a rule that requires nothing
   */
  requireAccess(rule: AccessRuleInput | AccessValue | undefined): preHandlerHookHandler;
  /** The `access` keys that name no registered route (empty once `app.ready()` resolved). */
  unmatchedRules(): string[];
  /** Replaces the config without a restart, as `AuthMiddleware.reload`; keys must name routes. */
  reload(config?: AuthConfig | object): Promise<ReloadState>;
  /** The serving config's generation, when it was loaded, and the last reload's error. */
  reloadState(): ReloadState;
  /** Revokes `jti:<id>` or `sub:<id>` in `revocation.store` on every replica, as `AuthMiddleware.revoke`. */
  revoke(entry: string, options?: RevokeOptions): Promise<Revocation>;
  /** Ends a revocation early on every replica; `false` when the entry was not in the list. */
  unrevoke(entry: string): Promise<boolean>;
  /** The revocations in force, soonest to end first. */
  revocations(): Promise<Revocation[]>;
  /** What the active handler says about itself (for `--check`); never a secret. */
  describe(): HandlerDescription;
  /** Whether the active handler can verify now (for `/readyz`), and the revocation list's state. */
  readiness(): AuthReadiness;
  /** RFC 9728 protected resource metadata (`url`, `document`); `null` without `resource`. */
  resourceMetadata(): { readonly url: string; readonly document: Readonly<Record<string, unknown>> } | null;
  /**
   * Holds a request whose answer outlives it (a `@fastify/websocket` route, a server-sent-events
   * stream) and calls `end(reason)` once when its authority ends: its credential's expiry, a
   * revocation on any replica, a reload after which its route would refuse it; as
   * `AuthMiddleware.hold`. Returns the release: call it when the connection closes.
   */
  hold(request: FastifyRequest, end: (reason: string) => void): () => void;
  /**
   * Explains what the `access` table makes of `request` (the route Fastify chose), with its real
   * credentials verified by the serving modes: every key that applied, in order, with its verdict
   * and the field that decided, then the answer; as `AuthMiddleware.explain`. Not the request's
   * decision: nothing is reported or counted, `request.auth` is left as it is.
   */
  explain(request: FastifyRequest): Promise<PolicyVerdict>;
  /** How many requests `hold` holds now. */
  readonly heldConnections: number;
}

const plugin: FastifyPluginAsync<AuthlayerOptions> = async (app, options) => {
  const { config, checkReload, logger: given, ...engineOptions } = options;
  const logger = given ?? appLogger(app);
  const book = new RouteBook();
  const { routes } = book;
  let ready = false;
  const engine = await createEngine(config, {
    ...engineOptions,
    logger,
    checkReload: (next) => {
      if (ready) {
        const unnamed = unnamedKeys(next.table.entries, routes);
        if (unnamed.length > 0) throw unnamedKeysError(unnamed);
      }
      checkReload?.({ config: next.config, unmatchedRules: () => unnamedKeys(next.table.entries, routes) });
    },
  });
  const current = engine.current;

  app.addHook('onRoute', (route) => book.record(route));
  app.addHook('onReady', async () => {
    const unnamed = unnamedKeys(current().table.entries, routes);
    if (unnamed.length > 0) throw unnamedKeysError(unnamed);
    ready = true;
  });
  app.addHook('onClose', async () => engine.close());

  app.decorateRequest('auth', undefined);
  app.decorateRequest(SCOPE, null);
  app.decorateRequest(GENERATION, null);
  serveMetadata(app, current);

  const port = createPort(logger);
  // MCP's DNS-rebinding rule comes before any credential is looked at.
  addMcpHostCheck(app, current, port);
  app.addHook('onRequest', createOnRequest(current, book, port));
  addMcpHooks(app, current, port);

  const api: AuthlayerApi = {
    get config() {
      return current().config;
    },
    get securitySchemes() {
      return openApiSecurity(current().loaded.handler);
    },
    requireAccess: (rule) => requireAccessWith(port, rule),
    unmatchedRules: () => unnamedKeys(current().table.entries, routes),
    reload: engine.reload,
    reloadState: engine.reloadState,
    revoke: engine.revoke,
    unrevoke: engine.unrevoke,
    revocations: engine.revocations,
    describe: engine.describe,
    readiness: engine.readiness,
    resourceMetadata: () => current().resourceMetadata(),
    hold: (request, end) => {
      const { method } = request;
      const url = request.routeOptions.url;
      const params = request.params;
      return engine.hold(
        {
          context: request.auth,
          request: request.raw,
          requestId: request.id,
          // The route Fastify chose, judged by each new generation's table as its hook would.
          planOf: (generation) => planOfRequest(routePlanOf(generation, book, method, url), params),
        },
        end,
      );
    },
    explain: explainWith(current, book),
    get heldConnections() {
      return engine.held();
    },
  };
  app.decorate('authlayer', api);
};

/**
 * The authlayer plugin for Fastify 5, app-wide (through `fastify-plugin`): an `onRequest` hook
 * authenticates each request and applies the `access` table to the route Fastify chose (the keys
 * that name it by method and URL as registered; `access.default` for a request that reaches no
 * route), answering 401/403/429 byte for byte as the Express adapter does. `request.auth` is the
 * caller's `AuthContext`; `app.authlayer` holds `requireAccess`, `reload`, `revoke`, ...
 * Register it before the routes: `app.ready()` fails naming every key that names no route.
 *
 * @example
 * await app.register(authlayer, { config: await loadConfig('authlayer.yaml') });
 * app.get('/reports/:id', async (request) => ({ by: request.auth?.userId }));
 */
export const authlayer = fp(plugin, { fastify: '5.x', name: '@authlayer/fastify' });
