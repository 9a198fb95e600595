import type { AuthConfig, AuthContext, AuthHandler, AuthMethod, AuthMode, HandlerDescription } from '@authlayer/core';
import {
  consoleLogger,
  type EngineOptions,
  type AuthReadiness,
  type PolicyVerdict,
  type ReloadState,
  type RequestAuth,
  type Revocation,
  type RevokeOptions,
} from '@authlayer/engine';
import { createEngine, type Flow, type Generation } from '@authlayer/engine/internal';
import type { NextFunction, Request, Response } from 'express';
import { answerMetadata, servedMetadataPath } from './metadata.js';
import { explainWith } from './explain.js';
import { createGuardedApps, refuseUnparsedKeys } from './access/guarded-apps.js';
import { unmatchedKeys } from './access/unmatched-rules.js';
import { createOnRequest, runAccessOf } from './request.js';
import { existingScopeOf } from './scope.js';
import type { IncomingMessage } from 'node:http';
import { createUpgrade, type UpgradeListener } from './upgrade.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /**
       * The caller's identity, set by the authlayer middleware once the request is authenticated:
       * the `AuthContext` and the MCP SDK's `AuthInfo` fields, so `transport.handleRequest(req, res,
       * req.body)` takes the request as it is.
       */
      auth?: RequestAuth;
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

/** Options of {@link createAuthMiddleware}; every one has a default (see `EngineOptions`). */
export interface AuthMiddlewareOptions extends Omit<EngineOptions, 'checkReload'> {
  /**
   * Asked before a reloaded config serves, with what it would serve; throwing (a ConfigError)
   * refuses the reload as a broken config would. Default: none.
   */
  readonly checkReload?: (next: { readonly config: AuthConfig; unmatchedRules(app: unknown): string[] }) => void;
}

/**
 * An Express middleware whose call signature is generic in the route's parameters, so that
 * `app.get('/users/:id', auth, (req) => req.params.id)` keeps `id: string` (a plain
 * `RequestHandler` would widen every parameter to `string | string[]`).
 */
export interface RouteMiddleware {
  <P = Request['params']>(req: Request<P>, res: Response, next: NextFunction): void;
}

/**
 * The middleware, which also says what it is: the configured mode and the active handler. Each
 * of these answers for the config serving now (a reload replaces it).
 */
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
   * A listener for `server.on('upgrade')` (WebSocket): the upgrade is judged as `auth.access`
   * judges a `GET` of its URL (the same table, modes and headers). A refusal is written on the
   * socket as the same HTTP answer (status, `WWW-Authenticate`, `Retry-After`, JSON body) and the
   * socket is ended; `handler` never runs. Allowed: `req.auth` is set (unset on a `public` route)
   * and `handler(req, socket, head)` is called. An `onDecision` listener that throws becomes a 500.
   *
   * @example
   * server.on('upgrade', auth.upgrade((req, socket, head) =>
   *   wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req))));
   */
  upgrade(handler: UpgradeListener): UpgradeListener;
  /**
   * Holds a request whose answer outlives it (a WebSocket from `auth.upgrade`, a server-sent-events
   * stream) and calls `end(reason)` once when its authority ends: its credential's expiry (a
   * token's `exp` plus `leeway_seconds`, an API key's `expires`: `token_expired`,
   * `credentials_expired`), a revocation of it on any replica (`token_revoked`, within a second),
   * or a reload after which its route would refuse it (`route_denied`, `permission_missing`, ...).
   * Each end is a decision (`outcome: "ended"`). Returns the release, for a connection that ends on
   * its own: call it on close, and nothing of the hold is kept. `end` must not throw (it is logged).
   *
   * @example
   * app.get('/events', auth, (req, res) => {
   *   res.writeHead(200, { 'Content-Type': 'text/event-stream' });
   *   const release = auth.hold(req, () => res.end());
   *   res.on('close', release);
   * });
   */
  hold(req: IncomingMessage & { auth?: AuthContext }, end: (reason: string) => void): () => void;
  /**
   * Explains what the `access` table makes of `req`, as `auth.access` mounted on the app judges
   * it, with its real credentials verified by the serving modes: every key that applied, in order,
   * with its verdict and the field that decided, then the answer (status, reason, challenge, key).
   * It is not the request's decision: no `onDecision`, no log line, no rate limit counted, and
   * `req` is left as it is. With `express.json()` before it, a POST to `mcp.endpoint` has its
   * MCP messages explained too. A DPoP proof is verified again, so it reads as replayed.
   *
   * @example
   * app.get('/debug/explain/*path', auth, async (req, res) => res.json(await auth.explain(req)));
   */
  explain(req: Request): Promise<PolicyVerdict>;
  /** How many requests `hold` holds now (the `authlayer_held_connections` gauge). */
  readonly heldConnections: number;
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
  /**
   * Replaces the config without a restart: `config` (a parsed config or the same shape as a plain
   * object), or, without one, the file the serving config was read from by `loadConfig`, read
   * again. The new config and every file and variable it names are read and checked in full
   * first (the mode packages build their handlers); then it replaces the old one at once.
   * Requests that started keep the config they started with; later ones get the new one, with
   * caches of verified tokens empty; remote key sets of unchanged sources are kept. `rate_limit`
   * is kept as it was at start (a warning says so when it changed). A reload that fails changes
   * nothing, logs one `error` line naming the field, and rejects. Reloads run one at a time.
   *
   * @returns the generation that serves now
   * @throws ConfigError for a broken config or missing key material; the old config keeps serving
   * @example
   * process.on('SIGHUP', () => auth.reload().catch(() => {})); // logged already
   */
  reload(config?: AuthConfig | object): Promise<ReloadState>;
  /** The serving config's generation, when it was loaded, and the last reload's error (for `/healthz`). */
  reloadState(): ReloadState;
  /** Releases what the middleware holds open (the Redis connections, file watches); for shutdown. */
  close(): Promise<void>;
}

/**
 * Creates the authentication middleware for a config: loads the package of each mode `auth.mode`
 * names, checks the key material, and fails fast. The middleware reads headers only, never the
 * body; on success it sets `req.auth`, on failure it answers 401 itself with the contract's JSON
 * body and `WWW-Authenticate`. A CORS preflight passes untouched (`req.auth` unset), so the app's
 * CORS handler answers it. `auth.optional` lets requests without credentials through anonymously.
 * `auth.reload()` replaces the config without a restart; with `reload.watch: true` in a config
 * read by `loadConfig`, a change of the file or of a key file it names reloads by itself.
 *
 * Every decision is `@authlayer/engine`'s; this is the Express glue around it.
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
  const guardedApps = createGuardedApps();
  const { checkReload, ...engineOptions } = options;
  const engine = await createEngine(config, {
    ...engineOptions,
    checkReload: (next) => {
      refuseUnparsedKeys(next.table);
      guardedApps.check(next);
      const served = servedMetadataPath(next);
      checkReload?.({ config: next.config, unmatchedRules: (app) => unmatchedKeys(next.table.entries, app, served) });
    },
  });
  try {
    refuseUnparsedKeys(engine.current().table);
  } catch (error) {
    await engine.close();
    throw error;
  }
  const current = engine.current;
  // The generation is read once, when the request arrives: it keeps it to the end.
  const route = (pick: (generation: Generation) => Flow) => createOnRequest(current, pick) as RouteMiddleware;
  const middleware = route((generation) => generation.auth);
  const members: { [K in keyof Omit<AuthMiddleware, keyof RouteMiddleware>]: PropertyDescriptor } = {
    config: { get: () => current().config, enumerable: true },
    mode: { get: () => current().config.mode, enumerable: true },
    modes: { get: () => current().config.modes, enumerable: true },
    method: { get: () => current().loaded.handler.method, enumerable: true },
    handler: { get: () => current().loaded.handler, enumerable: true },
    methods: { get: () => current().loaded.methods, enumerable: true },
    optional: { value: route((generation) => generation.optional), enumerable: true },
    access: {
      value: ((req: Request, res: Response, next: NextFunction) => {
        guardedApps.seen(req);
        const generation = current();
        // Read once: each property read of an Express request is a lookup (see scope.ts).
        const { method } = req;
        if (answerMetadata(generation, method, req, res)) return;
        runAccessOf(generation, method, req, res, next);
      }) as RouteMiddleware,
      enumerable: true,
    },
    accessAs: {
      value: (method: string, req: Request, res: Response, next: NextFunction) =>
        runAccessOf(current(), method, req, res, next),
      enumerable: true,
    },
    unmatchedRules: {
      value: (app: unknown) => {
        guardedApps.add(app);
        return unmatchedKeys(current().table.entries, app, servedMetadataPath(current()));
      },
      enumerable: true,
    },
    resourceMetadata: { value: () => current().resourceMetadata(), enumerable: true },
    accessFor: {
      value: (method: string, path: string): RouteAccess => current().accessFor(method, path),
      enumerable: true,
    },
    upgrade: {
      value: (handler: UpgradeListener) => createUpgrade(current, options.logger ?? consoleLogger, handler),
      enumerable: true,
    },
    hold: {
      value: (req: IncomingMessage & { auth?: AuthContext }, end: (reason: string) => void) => {
        const scope = existingScopeOf(req);
        const judged = scope?.judged ?? null;
        return engine.hold(
          {
            context: req.auth,
            request: req,
            requestId: scope?.id() ?? null,
            // Only the route is kept, not the request (a preflight's headers are all `plan` reads).
            planOf:
              judged === null
                ? () => null
                : (generation) => generation.plan(judged.method, judged.path, { headers: {} }),
          },
          end,
        );
      },
      enumerable: true,
    },
    explain: { value: explainWith(current), enumerable: true },
    heldConnections: { get: engine.held, enumerable: true },
    describe: { value: engine.describe, enumerable: true },
    readiness: { value: engine.readiness, enumerable: true },
    revoke: { value: engine.revoke, enumerable: true },
    unrevoke: { value: engine.unrevoke, enumerable: true },
    revocations: { value: engine.revocations, enumerable: true },
    reload: { value: engine.reload, enumerable: true },
    reloadState: { value: engine.reloadState, enumerable: true },
    close: { value: engine.close, enumerable: true },
  };
  return Object.defineProperties(middleware, members) as unknown as AuthMiddleware;
}
