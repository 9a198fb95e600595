import { createAuthContext, type AuthContext, type AuthRequest, type Logger } from '@authlayer/core';
import type { Plan } from '../access/access-table.js';
import { logRefusal } from '../access/access-log.js';
import type { AuthDecision, DecisionListener } from '../decision.js';
import type { Generation } from '../generation.js';
import { kindOf } from '../request/kind-of.js';
import { EndSchedule, type Timers } from './end-schedule.js';
import { refusalOf, type HeldRefusal } from './refusal-of.js';

/** Called once when a held request's authority ends, with the reason (`token_expired`, ...). */
export type EndHold = (reason: string) => void;

/** What an adapter tells of a request it holds (see `Holds.hold`). */
export interface HoldRequest {
  /** The request's identity as it was let through (`undefined`: a `public` route, no caller). */
  readonly context: AuthContext | undefined;
  /** The request as it came: its credential says when it ends (`credentialExpiry`). */
  readonly request: AuthRequest;
  /** The request's `X-Request-Id`, for the decision. */
  readonly requestId: string | null;
  /**
   * What a generation's table asks of this request (the adapter knows its route), for a reload;
   * `null` for a request the table did not judge (`auth` on a route): only its mode is checked.
   */
  readonly planOf: (generation: Generation) => Plan | null;
}

/** One held request. Keeps what a re-judgement needs and no more (not the request itself). */
interface Hold {
  readonly context: AuthContext;
  readonly requestId: string | null;
  readonly planOf: (generation: Generation) => Plan | null;
  readonly end: EndHold;
  readonly since: number;
  /** The 401 reason its credential's end gets (`token_expired`, `credentials_expired`). */
  readonly expiredReason: string;
}

export interface HoldsDeps {
  readonly now: () => number;
  readonly logger: Logger;
  readonly onDecision: DecisionListener | undefined;
  /** The generation serving now: whose handler says when a credential ends. */
  readonly current: () => Generation;
  /** True when the context's credential is revoked now (the revocation list; none: never). */
  readonly isRevoked: (context: AuthContext) => boolean;
  readonly timers?: Timers;
}

// No caller: a `public` route's request, held only until a reload makes the route ask for one.
const NOBODY = createAuthContext({ method: 'none' });

/**
 * The requests whose answer outlives them (WebSocket upgrades, server-sent events, MCP streams),
 * each ended once when its authority ends: its credential's expiry (one schedule, one timer for
 * all), a revocation (`revoked()`, when the list changed), or a reload after which its route would
 * refuse it (`rejudge`). Each end is a decision (`ended`, the reason).
 */
export class Holds {
  private readonly held = new Set<Hold>();
  private readonly schedule: EndSchedule<Hold>;

  constructor(private readonly deps: HoldsDeps) {
    this.schedule = new EndSchedule(
      deps.now,
      (hold) => this.end(hold, hold.expiredReason, this.askedOf(hold)),
      deps.timers,
    );
  }

  /** How many requests are held now. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Holds a request until its authority ends, then calls `end(reason)` once. An authority that has
   * ended already ends at once (in this call). Returns the release: the hold is forgotten, `end` is
   * never called; calling it again does nothing.
   */
  hold(request: HoldRequest, end: EndHold): () => void {
    if (typeof end !== 'function') throw new TypeError('auth.hold(req, end): end must be a function');
    const context = request.context ?? NOBODY;
    const expiry =
      context === NOBODY
        ? null
        : (this.deps.current().loaded.handler.credentialExpiry?.(context, request.request) ?? null);
    const hold: Hold = {
      context,
      requestId: request.requestId,
      planOf: request.planOf,
      end,
      since: this.deps.now(),
      expiredReason: expiry?.reason ?? 'token_expired',
    };
    this.held.add(hold);
    if (expiry !== null) {
      if (expiry.refusedFrom <= this.deps.now()) this.end(hold, hold.expiredReason, this.askedOf(hold));
      else this.schedule.add(hold, expiry.refusedFrom);
    }
    if (this.held.has(hold) && context !== NOBODY && this.deps.isRevoked(context)) {
      this.end(hold, 'token_revoked', this.askedOf(hold));
    }
    return () => this.forget(hold);
  }

  /** The revocation list changed: every held request whose credential it now revokes ends. */
  revoked(): void {
    for (const hold of this.held) {
      if (hold.context !== NOBODY && this.deps.isRevoked(hold.context))
        this.end(hold, 'token_revoked', this.askedOf(hold));
    }
  }

  /**
   * A reload swapped `generation` in: each held request is judged by its table as a request of its
   * route would be (without asking the credential again: it was verified, and ends on its own), and
   * ends with the refusal's reason when the route would now refuse it.
   */
  rejudge(generation: Generation): void {
    if (this.held.size === 0) return;
    const { reportOnly } = generation.config.accessPolicy;
    const methods: readonly string[] = generation.loaded.methods;
    for (const hold of this.held) {
      let refusal: HeldRefusal | null;
      try {
        refusal = refusalOf(
          hold.planOf(generation),
          hold.context,
          methods,
          this.deps.now,
          generation.config.scopes?.implies,
        );
      } catch (error) {
        // Fails closed: a request the new table cannot judge is not kept open.
        this.deps.logger.error(`a held request could not be judged after the reload (${kindOf(error)})`);
        refusal = { reason: 'route_denied', rule: null };
      }
      // report_only: the table only says what it would refuse; the connection is kept.
      if (refusal !== null && !reportOnly) this.end(hold, refusal.reason, refusal.rule);
    }
  }

  /** Forgets every hold without ending it (the engine closes). */
  clear(): void {
    this.held.clear();
    this.schedule.clear();
  }

  private forget(hold: Hold): boolean {
    this.schedule.delete(hold);
    return this.held.delete(hold);
  }

  /**
   * The key that asked for the held request's caller in the table serving now, for an end that is
   * the credential's (expiry, revocation); `null` when no table judged it or it cannot be judged.
   */
  private askedOf(hold: Hold): string | null {
    try {
      return hold.planOf(this.deps.current())?.askedBy ?? null;
    } catch {
      return null;
    }
  }

  /** Ends a hold once: its decision (`ended`, the reason, the key that decided), then its `end`. */
  private end(hold: Hold, reason: string, rule: string | null): void {
    if (!this.forget(hold)) return;
    const decision: AuthDecision = {
      outcome: 'ended',
      reason,
      rule,
      userId: hold.context.userId,
      method: hold.context.method,
      requestId: hold.requestId,
      durationMs: this.deps.now() - hold.since,
    };
    try {
      if (this.deps.current().config.accessPolicy.log === 'refusals') logRefusal(this.deps.logger, decision);
      this.deps.onDecision?.(decision);
    } catch (error) {
      this.deps.logger.error(`the onDecision listener failed (${kindOf(error)})`);
    }
    try {
      hold.end(reason);
    } catch (error) {
      this.deps.logger.error(`a held request's end function failed (${kindOf(error)})`);
    }
  }
}
