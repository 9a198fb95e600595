import {
  AuthError,
  bearerChallenge,
  dpopChallenge,
  headerValues,
  isAuthError,
  type AuthFailure,
  type AuthRequest,
  type BearerToken,
  type Logger,
  type MaybePromise,
  type ReplayCache,
  type SecuritySchemePart,
  type SenderConstraintConfig,
} from '@authlayer/core';
import { readSchemeToken } from '@authlayer/core/internal';
import { createHash, timingSafeEqual } from 'node:crypto';
import { clientCertificateThumbprint } from './client-certificate.js';
import { checkDpopProof, type ProofFailure } from './dpop-proof.js';
import { createMemoryReplayCache, type MemoryReplayCache } from './replay-cache.js';
import { createReplayCheck } from './replay-check.js';
import { requestTarget } from './request-target.js';

/** How a token came: `Authorization: Bearer` (or a mode's cookie) or `Authorization: DPoP`. */
export type PresentedAs = 'bearer' | 'dpop';

/** A mode's binding settings and what they are checked against. */
export interface SenderConstraintSettings extends SenderConstraintConfig {
  /** How far a proof's `iat` may be from now (the mode's leeway). */
  readonly leewaySeconds: number;
  /** `resource.identifier`: its origin is the public one that `htu` names; `null`: the request's own. */
  readonly resourceIdentifier: string | null;
  /** `tls.client_cert_header`: the only place a certificate is read from when set. */
  readonly clientCertHeader: string | null;
}

/** What the binding needs besides its settings. */
export interface SenderConstraintDeps {
  readonly logger: Logger;
  /** The clock, in milliseconds (the mode's `deps.now`). */
  readonly now: () => number;
  /**
   * A replay cache shared by every replica (`revocation.store`'s Redis), asked after this
   * process's own memory; while it fails, the process's memory alone decides (one warning).
   */
  readonly replayCache?: ReplayCache;
  /**
   * This process's own replay cache; default a new {@link createMemoryReplayCache}. A mode gives
   * the one it carries across config reloads (a new, empty one would take a replay).
   */
  readonly local?: MemoryReplayCache;
  /** Told which check a refused proof failed (tests, diagnostics); never a proof or a token. */
  readonly onProofFailure?: (failure: ProofFailure | 'replay' | 'count' | 'request') => void;
}

/** The binding of one mode's tokens to their sender. */
export interface SenderConstraint {
  /**
   * The token of an `Authorization: DPoP` header, when DPoP is on; `undefined` when the header is
   * not of that scheme (the mode then reads its Bearer token as before).
   */
  readDpopToken(request: AuthRequest): BearerToken | undefined;
  /**
   * Checks a verified token's binding for this request (`confirmation`: its `cnf` claim, or the
   * introspection answer's): the certificate, then the DPoP proof. Synchronous unless a proof is
   * checked. Throws (or rejects with) `AuthError` `certificate_mismatch` or `dpop_invalid`.
   */
  check(request: AuthRequest, presented: PresentedAs, token: string, confirmation: unknown): MaybePromise<void>;
  /**
   * A refusal of the mode (an `AuthError` with a Bearer challenge) with the challenges that the
   * DPoP setting asks for; anything else (and this binding's own refusals) as it is.
   */
  rechallenge(error: unknown, presented: PresentedAs | null): unknown;
  /** The OpenAPI schemes of the mode: `bearer` as given, a `DPoP` one, or only the `DPoP` one (`required`). */
  securitySchemes(bearer: SecuritySchemePart): SecuritySchemePart[];
  readonly config: SenderConstraintConfig;
}

/**
 * Builds the binding of a mode's tokens (`auth.jwt` or `auth.oauth2`'s `dpop`, `certificate_bound`),
 * or `null` when both are `off` (a `cnf` claim is then ignored, as before).
 *
 * - `certificate_bound` (RFC 8705 §3): a token with `cnf["x5t#S256"]` must come with that client
 *   certificate (else `certificate_mismatch`); with `required`, a token without it is refused too.
 * - `dpop` (RFC 9449): `Authorization: DPoP <token>` with one `DPoP` proof that passes every
 *   check of §4.3 ({@link checkDpopProof}), whose key's thumbprint is the token's `cnf.jkt`, and
 *   whose `jti` was not seen within the proof window (this process's replay cache, then the
 *   shared one when given). A token with `cnf.jkt`
 *   sent as Bearer is refused (a downgrade, §7.2); with `required`, every Bearer token is.
 *   Refusals are `dpop_invalid`: `invalid_dpop_proof` when the proof is at fault, else
 *   `invalid_token`, in a `DPoP` challenge with `algs`.
 */
export function createSenderConstraint(
  settings: SenderConstraintSettings,
  deps: SenderConstraintDeps,
): SenderConstraint | null {
  if (settings.dpop === 'off' && settings.certificateBound === 'off') return null;
  const { dpop, dpopAlgorithms: algorithms, certificateBound, leewaySeconds } = settings;
  const seen = createReplayCheck(
    deps.local ?? createMemoryReplayCache({ now: deps.now }),
    deps.replayCache ?? null,
    deps.logger,
  );

  // The refusals made here already carry their challenge; `rechallenge` leaves them as they are.
  const own = new WeakSet<AuthError>();
  // `description`: the refusal's own sentence (a mode's, e.g. audience_strict's), kept when re-issued.
  const refuse = (reason: AuthFailure, presented: PresentedAs | null, proofAtFault = false, description?: string) => {
    const error = new AuthError(reason, challengeOf(reason, presented, proofAtFault, description), description);
    own.add(error);
    return error;
  };
  function challengeOf(
    reason: AuthFailure,
    presented: PresentedAs | null,
    proofAtFault: boolean,
    description?: string,
  ) {
    if (dpop === 'off') return bearerChallenge(reason, description);
    const withError = dpopChallenge(algorithms, reason, proofAtFault, description);
    if (dpop === 'required') return withError;
    // RFC 9449 §7.1: the scheme the client used (or must use) carries the error; the other is offered beside it.
    if (presented === 'dpop' || reason === 'dpop_invalid')
      return `${withError}, ${bearerChallenge('credentials_missing')}`;
    return `${bearerChallenge(reason, description)}, ${dpopChallenge(algorithms, 'credentials_missing')}`;
  }
  const proofRefused = (failure: Parameters<NonNullable<SenderConstraintDeps['onProofFailure']>>[0]) => {
    deps.onProofFailure?.(failure);
    return refuse('dpop_invalid', 'dpop', true);
  };

  async function checkProof(request: AuthRequest, token: string, jkt: string): Promise<void> {
    const proofs = headerValues(request, 'dpop');
    // RFC 9449 §4.3 step 1: exactly one DPoP header.
    if (proofs.length !== 1) throw proofRefused('count');
    const target = requestTarget(request, settings.resourceIdentifier);
    if (target === null || request.method === undefined) throw proofRefused('request');
    const nowMs = deps.now();
    const checked = await checkDpopProof(proofs[0] as string, {
      method: request.method,
      target,
      tokenHash: sha256(token),
      algorithms,
      leewaySeconds,
      nowMs,
    });
    if ('failure' in checked) throw proofRefused(checked.failure);
    // RFC 9449 §6.1: the token is bound to the proof's key.
    if (!sameText(checked.jkt, jkt)) throw refuse('dpop_invalid', 'dpop');
    // §11.1: remembered for as long as this `iat` is accepted, keyed by a digest (no client text stored).
    const ttlMs = Math.max(1000, (checked.iat + leewaySeconds + 1) * 1000 - nowMs);
    const verdict = await seen(sha256(`${checked.jkt}.${checked.jti}`), ttlMs);
    // Full: refuse rather than forget a proof still in its window (fail closed).
    if (verdict === 'full') throw refuse('dpop_invalid', 'dpop', true);
    if (verdict === 'replay') throw proofRefused('replay');
  }

  function checkCertificate(request: AuthRequest, presented: PresentedAs, x5t: string | undefined): void {
    if (x5t === undefined) {
      if (certificateBound === 'required') throw refuse('certificate_mismatch', presented);
      return;
    }
    const thumbprint = clientCertificateThumbprint(request, settings.clientCertHeader);
    if (thumbprint === null || !sameText(thumbprint, x5t)) throw refuse('certificate_mismatch', presented);
  }

  return {
    config: { dpop, dpopAlgorithms: algorithms, certificateBound },
    readDpopToken(request) {
      if (dpop === 'off') return undefined;
      const token = readSchemeToken(request, 'dpop');
      return token.kind === 'absent' ? undefined : token;
    },
    check(request, presented, token, confirmation) {
      const cnf =
        typeof confirmation === 'object' && confirmation !== null ? (confirmation as Record<string, unknown>) : {};
      if (certificateBound !== 'off') checkCertificate(request, presented, stringOf(cnf['x5t#S256']));
      if (dpop === 'off') return;
      const jkt = stringOf(cnf.jkt);
      if (presented === 'bearer') {
        // §7.2: a bound token must not be downgraded to Bearer; `required` takes no Bearer token.
        if (jkt !== undefined || dpop === 'required') throw refuse('dpop_invalid', 'bearer');
        return;
      }
      // §7.1: the DPoP scheme carries DPoP-bound tokens only.
      if (jkt === undefined) throw refuse('dpop_invalid', 'dpop');
      return checkProof(request, token, jkt);
    },
    rechallenge: (error, presented) =>
      isAuthError(error) && !own.has(error) ? refuse(error.reason, presented, false, error.message) : error,
    securitySchemes(bearer) {
      if (dpop === 'off') return [bearer];
      const scheme: SecuritySchemePart = {
        name: 'DPoPAuth',
        type: 'http',
        scheme: 'dpop',
        description: `${bearer.description}, bound to the client's key by a DPoP proof (RFC 9449; algs ${algorithms.join(' ')})`,
      };
      return dpop === 'required' ? [scheme] : [bearer, scheme];
    },
  };
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Thumbprints are public, but compared in constant time all the same. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
