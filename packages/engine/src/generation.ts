import {
  bearerError,
  type AccessDefault,
  type AuthConfig,
  type AuthHandler,
  type AuthMode,
  type AuthRequest,
  type HandlerDeps,
} from '@authlayer/core';
import { authenticateNowOf, resourceMetadataUrl } from '@authlayer/core/internal';
import { ROUTE_DENIED, planOf } from './access/access-plan.js';
import { mayForbid } from './access/rules.js';
import { compileTable, matchEntries, planFor, type AccessTable, type Plan } from './access/access-table.js';
import { combineHandlers } from './combine-handlers.js';
import type { DecisionListener } from './decision.js';
import { loadModeHandler, type ImportModule, type LoadedMode } from './load-mode.js';
import type { RateLimits } from './rate-limit/verdicts.js';
import { credentialHeaders } from './access/credentials.js';
import { forbid, type EngineRequest, type Flow } from './request/decide.js';
import type { RequestScope } from './request/scope.js';
import type { RevocationFlow } from './revocation/revocation-flow.js';
import { createMcpGate, type McpGate } from './mcp/mcp-gate.js';
import { createAuthInfo } from './request/auth-info.js';
import { judgeBeside, loadCandidateJudge, type PolicyDiff } from './policy/candidate-judge.js';

export type { AccessStep } from './request/access-step.js';
import type { AccessStep } from './request/access-step.js';
import { pathOf } from './request/path-of.js';

/** What the engine serves for one config: built whole before it serves (see `reload`). */
export interface Generation {
  readonly config: AuthConfig;
  readonly loaded: LoadedMode;
  readonly table: AccessTable;
  /** A credential required. */
  readonly auth: Flow;
  /** A request without any credential goes on anonymously. */
  readonly optional: Flow;
  /**
   * The `access` table for a request to `method` and `path` (a path as the adapter's router takes
   * it): what to do with it. Sets `scope.plan` when rules are to be checked once the caller is known.
   */
  access(method: string, path: string, request: EngineRequest, scope: RequestScope): AccessStep;
  /** What the `access` table asks of a request to `method` and `path` (what `access` acts on). */
  plan(method: string, path: string, request: Pick<AuthRequest, 'method' | 'headers'>): Plan;
  /**
   * What to do with a request whose plan the adapter made itself (Fastify: with `planFor` over the
   * entries whose keys name the route the framework chose, once per route): as `access` after it
   * matched the table. Sets `scope.plan` when rules are to be checked once the caller is known.
   * `request`: for `access.candidate`, whose keys are matched to its method and URL's path as
   * `access` matches them (a candidate names no registered route yet); without it, not asked.
   */
  step(plan: Plan, scope: RequestScope, request?: EngineRequest): AccessStep;
  /** What the table asks of a request to `method` and `path`, for documentation such as OpenAPI. */
  accessFor(method: string, path: string): { authentication: 'none' | 'optional' | 'required'; mayRefuse: boolean };
  resourceMetadata(): { readonly url: string; readonly document: Readonly<Record<string, unknown>> } | null;
  /** The MCP messages POSTed to `mcp.endpoint` and their keys; `null` without `mcp`. */
  readonly mcp: McpGate | null;
}

/** What every generation shares: the options' deps and listeners, and the rate limits. */
export interface GenerationDeps {
  /** The handlers' deps, with the engine's clock (a rule's `max_age`, a candidate's judgement). */
  readonly deps: HandlerDeps & { readonly now: () => number };
  readonly importModule: ImportModule | undefined;
  readonly onDecision: DecisionListener | undefined;
  /** `access.candidate`'s disagreements (see `EngineOptions.onPolicyDiff`). */
  readonly onPolicyDiff?: ((diff: PolicyDiff) => void) | undefined;
  readonly passPreflight: boolean;
  /** The rate limits of the first config (a reload keeps them); asked once the handlers exist. */
  limits(config: AuthConfig): Promise<RateLimits | null>;
  /** The revocation check for these handlers (on the first config's store); asked after `limits`. */
  revocation(config: AuthConfig, handlers: LoadedMode['handlers']): Promise<RevocationFlow | null>;
}

type Authenticate = Flow['authenticate'];

/**
 * Loads the mode packages for `config` and builds its flows: `auth`, `optional`, and the table's.
 * Nothing of it serves until the caller swaps it in.
 *
 * @throws whatever loading the modes throws (ConfigError on missing key material)
 */
export async function buildGeneration(config: AuthConfig, shared: GenerationDeps): Promise<Generation> {
  const loaded = await loadModeHandler(config, shared.deps, shared.importModule);
  const { handler } = loaded;
  const limits = await shared.limits(config);
  const revocation = await shared.revocation(config, loaded.handlers);
  const candidate = await loadCandidateJudge(config, {
    logger: shared.deps.logger,
    now: shared.deps.now,
    ...(shared.onPolicyDiff === undefined ? {} : { onDiff: shared.onPolicyDiff }),
  });
  // Every path to a handler goes through the revocation list, when there is one.
  const authenticateOf = (chosen: AuthHandler): Authenticate => {
    const authenticate = authenticateNowOf(chosen);
    return revocation === null ? authenticate : revocation.wrap(authenticate);
  };
  const base = {
    method: handler.method,
    logger: shared.deps.logger,
    limits,
    trustProxy: config.rateLimit?.trustProxy ?? false,
    onDecision: shared.onDecision,
    // report_only's would_refuse and forbidden decisions are logged by the engine itself: an app
    // that passes no onDecision still sees what its policy would refuse.
    logRefusals: config.accessPolicy.reportOnly,
    logDecisions: config.accessPolicy.log === 'refusals',
    reportOnly: false,
    passPreflight: shared.passPreflight,
    now: shared.deps.now,
    ...(config.scopes === undefined ? {} : { implies: config.scopes.implies }),
    ...(config.resource === null ? {} : { resourceMetadata: resourceMetadataUrl(config.resource.identifier) }),
    ...(handler.limitsOf === undefined ? {} : { limitsOf: handler.limitsOf.bind(handler) }),
    // req.auth is typed RequestAuth in every config: a copy of the shared context per request.
    authInfo: createAuthInfo(handler, config.resource?.identifier ?? null),
  };
  const authenticate = authenticateOf(handler);
  const optionalHeaders = credentialHeaders(handler);
  const table = compileTable(config.access);
  const subsets = subsetsOf(config, loaded, authenticateOf);
  const tableFlows = new Map<string, Flow>();
  const flowFor = (optional: boolean, modes: readonly AuthMode[] | null): Flow => {
    const allowed = modes === null ? null : config.modes.filter((mode) => modes.includes(mode));
    const key = `${optional}:${allowed?.join(',') ?? '*'}`;
    let made = tableFlows.get(key);
    if (made === undefined) {
      made = {
        ...base,
        // A preflight to a route of the table is answered as the table says (public, optional).
        passPreflight: false,
        authenticate: allowed === null ? authenticate : subsets(allowed),
        optional: optional ? optionalHeaders : null,
        reportOnly: config.accessPolicy.reportOnly,
      };
      tableFlows.set(key, made);
    }
    return made;
  };
  const fallback: AccessDefault = config.accessPolicy.default ?? 'authenticated';
  const { reportOnly } = config.accessPolicy;
  const required = flowFor(false, null);
  return {
    config,
    loaded,
    table,
    auth: { ...base, authenticate, optional: null },
    optional: { ...base, authenticate, optional: optionalHeaders },
    access: (method, path, request, scope) =>
      judged(planOf(table, method, path, request, fallback), scope, method, path, request),
    plan: (method, path, request) => planOf(table, method, path, request, fallback),
    step: (plan, scope, request) =>
      candidate === null || request === undefined
        ? stepOf(plan, scope)
        : judged(plan, scope, request.method, pathOf(request.url), request),
    accessFor: (method, path) => {
      const plan = planFor(matchEntries(table, method, path), fallback);
      // A rule that only asks for a step-up refuses with a 401, never a 403.
      return {
        authentication: plan.authentication,
        mayRefuse: plan.denied || plan.rules.some(({ rule }) => mayForbid(rule)),
      };
    },
    resourceMetadata: () => resourceMetadataOf(config, handler),
    mcp: createMcpGate(config.mcp, config.access, required),
  };

  /** The step, and the candidate judged beside it: both adapters' one way in (`access`, `step`). */
  function judged(plan: Plan, scope: RequestScope, method: string, path: string, request: AuthRequest): AccessStep {
    const stepped = stepOf(plan, scope);
    if (candidate !== null) judgeBeside(candidate, { method, path, request, plan, stepped }, scope);
    return stepped;
  }

  function stepOf(plan: Plan, scope: RequestScope): AccessStep {
    scope.askedBy = plan.askedBy;
    if (plan.denied && !reportOnly) {
      const denied = forbid(required, scope, { error: ROUTE_DENIED, route: plan.deniedBy! }, null);
      return { kind: 'denied', outcome: denied };
    }
    // report_only: what deny would refuse is only reported, so the caller is asked at most optionally.
    const authentication = plan.denied && plan.authentication === 'none' ? 'optional' : plan.authentication;
    if (authentication === 'none') {
      // Nothing decided: a guard after it that finds no caller reports its 401 (`refusedUnauthenticated`).
      scope.reportTo = required;
      return PUBLIC;
    }
    if (plan.denied || plan.rules.length > 0) scope.plan = plan;
    const flow =
      authentication === 'required' && plan.modes === null
        ? required
        : flowFor(authentication === 'optional', plan.modes);
    return { kind: 'flow', flow };
  }
}

const PUBLIC: AccessStep = Object.freeze({ kind: 'public' });

/**
 * The authentication of a subset of `auth.mode` that a route's `modes` leaves (a credential of a
 * mode outside it is answered as no credential at all); a subset whose packages are all missing
 * refuses every request. Asked once per subset: the table's flows keep what it makes.
 */
function subsetsOf(
  config: AuthConfig,
  loaded: LoadedMode,
  authenticateOf: (handler: AuthHandler) => Authenticate,
): (allowed: readonly AuthMode[]) => Authenticate {
  return (allowed) => {
    const handlers = loaded.handlers.filter((candidate) => (allowed as readonly string[]).includes(candidate.method));
    if (handlers.length === 0) return authenticateOf(refuseAll);
    if (handlers.length === loaded.handlers.length) return authenticateOf(loaded.handler);
    return combinedLater(() => combineHandlers(loaded.handlers, config, allowed), authenticateOf);
  };
}

/** Combines the handlers on the first request that needs them; synchronous from then on. */
function combinedLater(
  combine: () => Promise<AuthHandler>,
  authenticateOf: (handler: AuthHandler) => Authenticate,
): Authenticate {
  let ready: Authenticate | null = null;
  let building: Promise<Authenticate> | null = null;
  return (request: AuthRequest) => {
    if (ready !== null) return ready(request);
    building ??= combine().then(
      (handler) => (ready = authenticateOf(handler)),
      (error: unknown) => {
        building = null;
        throw error;
      },
    );
    return building.then((authenticate) => authenticate(request));
  };
}

/**
 * RFC 9728 §2: the resource, the issuers the modes accept tokens of, every scope a route key or
 * an MCP key of the `access` table needs (never `offline_access`: no operation needs it), how a token is sent (an Authorization header only), and the DPoP algorithms and
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
  scopes.delete('offline_access');
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
