import {
  createAuthMiddleware,
  errorHandler,
  notFound,
  requestId,
  secretHeaders,
  sendError,
  type AuthDecision,
  type AuthMiddleware,
  type AuthMiddlewareOptions,
} from '@authlayer/express';
import { isParsedAuthConfig, parseAuthConfig, type AuthConfig, type Logger } from '@authlayer/core';
import express, { type Express, type RequestHandler } from 'express';
import type { Logger as Pino } from 'pino';
import { toLogger } from './logging.js';
import { checkCertificateSource } from './tls-server.js';
import { requestLog } from './request-log.js';
import { createServiceMetrics } from './metrics.js';
import { checkAccessRoutes, withServiceRoutes } from './access.js';
import { buildOpenApiDocument } from './openapi.js';
import { docsRouter } from './routes/docs.js';
import { healthRouter } from './routes/health.js';
import { forwardAuthRouter } from './routes/forward-auth.js';
import { invokeRouter } from './routes/invoke.js';

/** Options of {@link createApp}: the middleware's, and the service's operations. */
export interface ServiceOptions extends AuthMiddlewareOptions {
  /**
   * The service's pino logger (see `createServiceLog`): one line per request (secret headers
   * redacted) and one `auth` line per decision. It is also the middleware's logger unless
   * `logger` is given. Default: no request or audit lines.
   */
  readonly log?: Pino;
  /** Serve `GET /metrics`. Default: the config's `metrics` field. */
  readonly metrics?: boolean;
}

/**
 * The service; `shutdown()` releases what it holds open (the rate limit's Redis connection), and
 * `auth` is its authentication middleware (what it says about itself goes into start-up lines).
 * `reload()` reads the config file again (SIGHUP): see `AuthMiddleware.reload`.
 */
export type ServiceApp = Express & {
  shutdown(): Promise<void>;
  reload(): Promise<unknown>;
  readonly auth: AuthMiddleware;
  /** `/forward-auth` alone, for the listener `forward_auth.listen` names; `null` without one. */
  readonly forwardAuth: Express | null;
};

/**
 * Builds the reference service for a config, exactly as a user's own app would: through
 * `createAuthMiddleware` and nothing else of authlayer's insides. Never listens.
 *
 * @throws ConfigError on a bad config or missing key material
 */
export async function createApp(config: AuthConfig | object, options: ServiceOptions = {}): Promise<ServiceApp> {
  const { log, metrics: metricsOption, ...middlewareOptions } = options;
  const metrics = createServiceMetrics();
  const logger = options.logger ?? (log === undefined ? undefined : toLogger(log));
  const given = isParsedAuthConfig(config) ? config : parseAuthConfig(config);
  checkCertificateSource(given);
  const serveMetrics = metricsOption ?? given.metrics;
  const auth = await createAuthMiddleware(given, {
    ...middlewareOptions,
    ...(logger === undefined ? {} : { logger }),
    // Every config, the first and each reloaded one, gets the service's own routes in its table.
    prepare: (config) => withServiceRoutes(config, serveMetrics),
    checkReload: (next) => {
      warnAboutKeptSettings(given, next.config, logger);
      // The listener (tls) is the first config's: a reload cannot bring a certificate source.
      checkCertificateSource({ ...next.config, tls: given.tls });
      // A key that matches none of the service's routes: the middleware refuses the reload itself
      // (it knows the app from unmatchedRules below), and skips the check under forward_auth.
    },
    onReload: (event) => {
      metrics.reload(event);
      options.onReload?.(event);
    },
    observe: { keyFetch: metrics.keyFetch, tokenCache: metrics.tokenCache },
    // access.candidate's disagreements: keys and reasons only, so the labels stay bounded by the config.
    onPolicyDiff: metrics.policyDiff,
    // The decision is made once, in the middleware; here it becomes one audit line and the metrics.
    onDecision: (decision: AuthDecision) => {
      log?.[decision.outcome === 'error' ? 'error' : 'info'](decision, 'auth');
      // `auth` serves by the time a request is decided; asked per decision, as a reload changes it.
      metrics.observe(decision, auth.handler);
    },
  });
  metrics.holding(() => auth.heldConnections);
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  // Read per request: a reload may bring other modes, and other credential headers.
  if (log !== undefined) app.use(requestLog(log, () => secretHeaders(auth)));
  // /forward-auth takes any method, and is not itself under the table: it applies the table to the
  // request a proxy describes. With forward_auth.listen it is served on that listener only.
  const { enabled, listen } = auth.config.forwardAuth;
  const forwardAuth = enabled && listen !== null ? forwardAuthApp(auth, log, logger) : null;
  if (enabled && listen === null) app.use(forwardAuthRouter(auth));
  // Contract: any other method is 404. Without this, Express's routers answer OPTIONS themselves
  // (200 text/plain "POST"); a CORS preflight is the app's CORS handler's, and there is none here.
  app.use(onlyMethods('GET', 'HEAD', 'POST'));
  // Every route below is under the access table: authenticated and authorized before it runs.
  app.use(auth.access);
  app.use(healthRouter(auth));
  if (serveMetrics) app.get('/metrics', metrics.handler);
  const metadata = auth.resourceMetadata();
  // RFC 9728 protected resource metadata, public: clients read it to learn how to get a token.
  // auth.access answers it itself unless resource.serve_metadata is false.
  if (metadata !== null && auth.config.resource?.serveMetadata === false)
    app.get(new URL(metadata.url).pathname, (_req, res) => void res.json(metadata.document));
  const documentOf = latestOf(auth, buildOpenApiDocument);
  app.get('/openapi.json', (_req, res) => {
    res.json(documentOf());
  });
  app.use(invokeRouter());
  app.use(docsRouter());
  app.use(notFound());
  app.use(errorHandler(logger === undefined ? {} : { logger }));
  try {
    // Asked whatever the config: it also tells the middleware which app a reload's table must fit.
    const unmatched = auth.unmatchedRules(app);
    // With forward_auth, the table describes the proxied application's routes too.
    if (!auth.config.forwardAuth.enabled) checkAccessRoutes(unmatched);
  } catch (error) {
    await auth.close();
    throw error;
  }
  return Object.assign(app, { shutdown: () => auth.close(), reload: () => auth.reload(), auth, forwardAuth });
}

/** The app of `forward_auth.listen`: `/forward-auth`, request lines, and 404 for anything else. */
function forwardAuthApp(auth: AuthMiddleware, log: Pino | undefined, logger: Logger | undefined): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId());
  if (log !== undefined) app.use(requestLog(log, () => secretHeaders(auth)));
  app.use(forwardAuthRouter(auth));
  app.use(notFound());
  app.use(errorHandler(logger === undefined ? {} : { logger }));
  return app;
}

/** `make(auth)`, made again only when a reload replaced the config. */
function latestOf<T>(auth: AuthMiddleware, make: (auth: AuthMiddleware) => T): () => T {
  let made: { config: AuthConfig; value: T } | null = null;
  return () => {
    if (made?.config !== auth.config) made = { config: auth.config, value: make(auth) };
    return made.value;
  };
}

/**
 * What a reload cannot change in the service, since it decided which routes exist at start:
 * `metrics`, `forward_auth.enabled` and `.listen`, `resource`, and `tls` (the listener). Each change is one
 * warning; the rest serves.
 */
function warnAboutKeptSettings(first: AuthConfig, next: AuthConfig, logger: Logger | undefined): void {
  const kept = [
    first.metrics !== next.metrics && 'metrics',
    first.forwardAuth.enabled !== next.forwardAuth.enabled && 'forward_auth.enabled',
    JSON.stringify(first.forwardAuth.listen) !== JSON.stringify(next.forwardAuth.listen) && 'forward_auth.listen',
    JSON.stringify(first.resource) !== JSON.stringify(next.resource) && 'resource',
    JSON.stringify(first.tls) !== JSON.stringify(next.tls) && 'tls',
  ].filter(Boolean);
  if (kept.length > 0) logger?.warn(`config reload: ${kept.join(', ')} changed; kept as at start until a restart`);
}

/** Answers 404 `not_found` to any method but those listed, before any route can answer it. */
function onlyMethods(...methods: string[]): RequestHandler {
  const allowed = new Set(methods);
  // The plain 404, never notFound()'s Express-style answer to OPTIONS (200 with Allow).
  return (req, res, next) => (allowed.has(req.method) ? next() : sendError(res, 404, 'not_found', 'no such resource'));
}

export { describeAuth } from './routes/health.js';
