import { bearerError, type AuthConfig, type AuthHandler, type AuthMode, type HandlerDeps } from '@authlayer/core';
import { authenticateNowOf, resourceMetadataUrl } from '@authlayer/core/internal';
import type { NextFunction, Request, Response } from 'express';
import { authorizeByPlan, createAccessMiddleware, type AccessFlow } from './access/access-middleware.js';
import { compileTable, matchEntries, planFor } from '@authlayer/engine/internal';
import { unmatchedKeys } from './access/unmatched-rules.js';
import { authenticateRequest, type AuthenticateDeps } from './authenticate-request.js';
import { combineHandlers } from '@authlayer/engine/internal';
import { credentialHeaders } from './credentials.js';
import type { DecisionListener } from '@authlayer/engine/internal';
import { loadModeHandler, type ImportModule, type LoadedMode } from '@authlayer/engine/internal';
import type { RateLimits } from '@authlayer/engine/internal';
import type { RevocationFlow } from '@authlayer/engine/internal';

/** What the middleware serves for one config: built whole before it serves (see `reload`). */
export interface Generation {
  readonly config: AuthConfig;
  readonly loaded: LoadedMode;
  readonly auth: (req: Request, res: Response, next: NextFunction) => void;
  readonly optional: (req: Request, res: Response, next: NextFunction) => void;
  readonly access: (req: Request, res: Response, next: NextFunction) => void;
  accessAs(method: string, req: Request, res: Response, next: NextFunction): void;
  unmatchedRules(app: unknown): string[];
  accessFor(method: string, path: string): { authentication: 'none' | 'optional' | 'required'; mayRefuse: boolean };
  resourceMetadata(): { readonly url: string; readonly document: Readonly<Record<string, unknown>> } | null;
}

/** What every generation shares: the options' deps and listeners, and the rate limits. */
export interface GenerationDeps {
  readonly deps: HandlerDeps;
  readonly importModule: ImportModule | undefined;
  readonly onDecision: DecisionListener | undefined;
  readonly passPreflight: boolean;
  /** The rate limits of the first config (a reload keeps them); asked once the handlers exist. */
  limits(config: AuthConfig): Promise<RateLimits | null>;
  /** The revocation check for these handlers (on the first config's store); asked after `limits`. */
  revocation(config: AuthConfig, handlers: LoadedMode['handlers']): Promise<RevocationFlow | null>;
}

/**
 * Loads the mode packages for `config` and builds every middleware of it: `auth`, `optional`,
 * `access` and its flows. Nothing of it serves until the caller swaps it in.
 *
 * @throws whatever loading the modes throws (ConfigError on missing key material)
 */
export async function buildGeneration(config: AuthConfig, shared: GenerationDeps): Promise<Generation> {
  const loaded = await loadModeHandler(config, shared.deps, shared.importModule);
  const { handler } = loaded;
  const limits = await shared.limits(config);
  const revocation = await shared.revocation(config, loaded.handlers);
  // Every path to a handler goes through the revocation list, when there is one.
  const authenticateOf = (chosen: AuthHandler) => {
    const authenticate = authenticateNowOf(chosen);
    return revocation === null ? authenticate : revocation.wrap(authenticate);
  };
  const flow = {
    method: handler.method,
    logger: shared.deps.logger,
    limits,
    trustProxy: config.rateLimit?.trustProxy ?? false,
    onDecision: shared.onDecision,
    // report_only's would_refuse and forbidden decisions are logged by the middleware itself: an
    // app that passes no onDecision still sees what its policy would refuse.
    logRefusals: config.accessPolicy.reportOnly,
    passPreflight: shared.passPreflight,
    ...(config.resource === null ? {} : { resourceMetadata: resourceMetadataUrl(config.resource.identifier) }),
    ...(handler.limitsOf === undefined ? {} : { limitsOf: handler.limitsOf.bind(handler) }),
  };
  const authenticate = authenticateOf(handler);
  const optionalHeaders = credentialHeaders(handler);
  const table = compileTable(config.access);
  const restricted = await restrictedHandlers(config, loaded);
  const accessFlows = new Map<string, AccessFlow>();
  const flowFor = (optional: boolean, modes: readonly AuthMode[] | null): AccessFlow => {
    const allowed = modes === null ? '*' : config.modes.filter((mode) => modes.includes(mode)).join(',');
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
        reportOnly: config.accessPolicy.reportOnly,
      };
      made = { deps, run: middleware(deps) };
      accessFlows.set(key, made);
    }
    return made;
  };
  const access = createAccessMiddleware({ table, policy: config.accessPolicy, flowFor });
  return {
    config,
    loaded,
    auth: middleware({ ...flow, authenticate, optional: null }),
    optional: middleware({ ...flow, authenticate, optional: optionalHeaders }),
    access: access.middleware,
    accessAs: access.as,
    unmatchedRules: (app: unknown) => unmatchedKeys(table.entries, app),
    accessFor: (method, path) => {
      const plan = planFor(matchEntries(table, method, path), config.accessPolicy.default ?? 'authenticated');
      return { authentication: plan.authentication, mayRefuse: plan.denied || plan.rules.length > 0 };
    },
    resourceMetadata: () => resourceMetadataOf(config, handler),
  };
}

/** One deps object per middleware, made once; a synchronous answer calls next() in this turn. */
function middleware(deps: AuthenticateDeps) {
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
