import {
  authenticateNowOf,
  isParsedAuthConfig,
  parseAuthConfig,
  type AuthConfig,
  type AuthContext,
  type AuthHandler,
  type AuthMethod,
  type AuthMode,
  type HandlerDeps,
  type HandlerDescription,
  type HandlerObserver,
  type HandlerReadiness,
  type Logger,
  type RevocationCheck,
} from '@authlayer/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { authenticateRequest, type AuthenticateDeps } from './authenticate-request.js';
import { credentialHeaders } from './credentials.js';
import type { DecisionListener } from './decision.js';
import { loadModeHandler, type ImportModule } from './load-mode.js';
import { consoleLogger } from './logger.js';
import type { RateLimits } from './rate-limit/rate-limits.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The caller's identity, set by the authlayer middleware once the request is authenticated. */
      auth?: AuthContext;
    }
  }
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
  /** Called once per authentication decision (audit line, metrics); see `AuthDecision`. */
  readonly onDecision?: DecisionListener;
  /**
   * Asked on every authenticated request, cache hits included, with the AuthContext and the
   * token's verified claims: `true` refuses it with 401 `token_revoked` (as does a hook that
   * throws). JWT mode asks it; API key mode has no tokens to revoke and does not.
   */
  readonly isRevoked?: RevocationCheck;
}

/** The middleware, which also says what it is: the configured mode and the active handler. */
export interface AuthMiddleware extends RequestHandler {
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
  readonly optional: RequestHandler;
  /** What the active handler says about itself (for `--check`); never a secret. */
  describe(): HandlerDescription;
  /** Whether the active handler can verify now (for `/readyz`). */
  readiness(): HandlerReadiness;
  /** Releases what the middleware holds open (the `rate_limit` Redis connection); for shutdown. */
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
  const deps: HandlerDeps = {
    env: options.env ?? process.env,
    logger,
    now: options.now ?? Date.now,
    ...(options.observe === undefined ? {} : { observe: options.observe }),
    ...(options.isRevoked === undefined ? {} : { isRevoked: options.isRevoked }),
  };
  const { handler, methods } = await loadModeHandler(parsed, deps, options.importModule);
  const limits = parsed.rateLimit === null ? null : await loadRateLimits(parsed.rateLimit, logger);
  const flow = {
    method: handler.method,
    authenticate: authenticateNowOf(handler),
    logger,
    limits,
    trustProxy: parsed.rateLimit?.trustProxy ?? false,
    onDecision: options.onDecision,
  };
  // One deps object per middleware, made once; a synchronous answer calls next() in this turn.
  const middleware = (optional: readonly string[] | null) => {
    const deps: AuthenticateDeps = { ...flow, optional };
    return (req: Request, res: Response, next: NextFunction) => {
      let pending: void | Promise<void>;
      try {
        pending = authenticateRequest(deps, req, res, next);
      } catch (error) {
        // An audit listener that throws is a bug of the app: it becomes a 500, never a crash.
        return next(error);
      }
      pending?.catch(next);
    };
  };
  return Object.assign(middleware(null), {
    config: parsed,
    mode: parsed.mode,
    modes: parsed.modes,
    method: handler.method,
    handler,
    methods,
    optional: middleware(credentialHeaders(handler)),
    describe: () => handler.describe?.() ?? NOTHING,
    readiness: () => handler.readiness?.() ?? ALWAYS_READY,
    close: async () => limits?.close(),
  });
}

/**
 * The rate limits, imported only when `rate_limit` is configured: rate-limiter-flexible and
 * ioredis stay out of every process that does not use them. Importing this package then costs
 * about 23 MiB of RSS and 5.4 MB of heap instead of 32–35 MiB and 7.3 MB (Node.js 20, after a
 * full GC).
 */
async function loadRateLimits(config: NonNullable<AuthConfig['rateLimit']>, logger: Logger): Promise<RateLimits> {
  const { createRateLimits } = await import('./rate-limit/rate-limits.js');
  return createRateLimits(config, logger);
}
