import { ForbiddenError, type AccessPolicy, type AuthContext, type AuthMode, type RouteParams } from '@authlayer/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { forbid, type AuthenticateDeps, type Refusal } from '../authenticate-request.js';
import { ruleRefusal } from '../guards.js';
import { matchEntries, planFor, type AccessTable, type Plan } from '@authlayer/engine/internal';
import { planForOptions } from './options-plan.js';

/** The authentication of one kind of route: optional or not, and which modes may authenticate. */
export interface AccessFlow {
  readonly deps: AuthenticateDeps;
  readonly run: RequestHandler;
}

/** What `auth.access` is built from: the compiled table, and a flow for each need (made by the middleware). */
export interface AccessDeps {
  readonly table: AccessTable;
  readonly policy: AccessPolicy;
  /** The flow for routes that need `optional` or `required` authentication, by the modes allowed. */
  flowFor(optional: boolean, modes: readonly AuthMode[] | null): AccessFlow;
}

const ROUTE_DENIED = new ForbiddenError('route_denied', null, []);
const TENANT_MISMATCH = new ForbiddenError('tenant_mismatch', null, []);

// The plan of each request that `auth.access` passed to authentication, for the check after it.
const plans = new WeakMap<Request, Plan>();

/**
 * The check made once the caller is known: `deny` (only reached with `report_only`), then every
 * matched rule object (its names, one of its `any`, its tenant parameter). A refusal names the
 * key that refused, for the decision's log line.
 */
export function authorizeByPlan(req: Request, context: AuthContext): Refusal | null {
  const plan = plans.get(req);
  if (plan === undefined) return null;
  if (plan.deniedBy !== null) return { error: ROUTE_DENIED, route: plan.deniedBy };
  for (const { rule, params, key } of plan.rules) {
    const refusal = ruleRefusal(rule, context, req);
    if (refusal !== null) return { error: refusal, route: key };
    if (rule.tenantParam !== null && !sameTenant(params, rule.tenantParam, context)) {
      return { error: TENANT_MISMATCH, route: key };
    }
  }
  return null;
}

/** Exactly equal, both strings; a null tenant never matches, nor a splat's list. */
function sameTenant(params: RouteParams | null, name: string, context: AuthContext): boolean {
  const value = params?.[name];
  return typeof value === 'string' && context.tenantId !== null && value === context.tenantId;
}

/**
 * `auth.access`: every request is matched against the table (as Express 5's router matches
 * routes), and authenticated and authorized as all the entries that match it ask together.
 * `public` passes untouched; `deny` answers 403 before any credential is looked at. `as` is the
 * same for a given method (a proxy's original request: the request's own `method` must stay, as
 * Express's answers read it).
 */
export function createAccessMiddleware(deps: AccessDeps): {
  readonly middleware: RequestHandler;
  readonly as: (method: string, req: Request, res: Response, next: NextFunction) => void;
} {
  const { table } = deps;
  const fallback = deps.policy.default ?? 'authenticated';
  const { reportOnly } = deps.policy;
  const required = deps.flowFor(false, null);
  const as = (method: string, req: Request, res: Response, next: NextFunction) => {
    // OPTIONS is answered by Express for every route of the path: judged by the path's entries.
    const plan =
      method === 'OPTIONS'
        ? planForOptions(table, req, req.path, fallback)
        : planFor(matchEntries(table, method, req.path), fallback);
    if (plan.denied && !reportOnly) {
      forbid(required.deps, { error: ROUTE_DENIED, route: plan.deniedBy! }, req, res, performance.now(), null).catch(
        next,
      );
      return;
    }
    // report_only: what deny would refuse is only reported, so the caller is asked at most optionally.
    const authentication = plan.denied && plan.authentication === 'none' ? 'optional' : plan.authentication;
    if (authentication === 'none') return next();
    if (plan.denied || plan.rules.length > 0) plans.set(req, plan);
    const flow =
      authentication === 'required' && plan.modes === null
        ? required
        : deps.flowFor(authentication === 'optional', plan.modes);
    flow.run(req, res, next);
  };
  // Three parameters: Express takes a function of four for an error handler.
  return { middleware: (req, res, next) => as(req.method, req, res, next), as };
}
