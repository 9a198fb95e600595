import {
  AuthError,
  combineChallenges,
  fromAuthenticateNow,
  headerValues,
  isAuthError,
  RECOGNITIONS,
  type AuthConfig,
  type AuthContext,
  type ClientDecision,
  type ConstraintMode,
  type SenderConstraintConfig,
  type MaybePromise,
  type AuthHandler,
  type AuthRequest,
  type HandlerReadiness,
  type Recognition,
} from '@authlayer/core';
import { authenticateNowOf, isPromiseLike } from '@authlayer/core/internal';
import { refusedBy } from './request/mode-tried.js';

type Method = AuthHandler['method'];

/**
 * One handler for several modes on one route (`auth.mode: [api_key, jwt]`). Each request goes to
 * the mode that recognises its credential most surely (see `AuthHandler.recognize`), the first
 * listed on a tie: an API key header to api_key, a compact JWS to jwt, a configured API key sent
 * as Bearer to api_key (which refuses it without `allow_bearer`: it is never sent to an
 * introspection endpoint), another opaque Bearer token to oauth2. The chosen mode alone answers, so its reason and message
 * stand; a refusal's `WWW-Authenticate` lists every mode's challenge, the chosen one's first. No
 * credential for any mode → `credentials_missing` with every challenge. What the combined handler
 * says about itself (summary, schemes, credential headers, `--check`) is each mode's own, composed.
 *
 * @param handlers - at least two, of distinct methods, in the order `auth.mode` lists them
 * @param _config - the parsed config (the modes speak for themselves; kept for callers)
 * @param only - the methods that may authenticate (default: all); the others' credentials are
 *   refused as missing, with the challenges of these alone
 */
export async function combineHandlers(
  handlers: readonly AuthHandler[],
  _config?: AuthConfig,
  only: readonly Method[] = handlers.map((handler) => handler.method),
): Promise<AuthHandler> {
  // `only` (a route's `modes`): a credential for another mode is answered as no credential at all.
  const allowed = handlers.filter((handler) => only.includes(handler.method));
  const missing = await Promise.all(allowed.map(missingChallenge));
  const noCredentials = new AuthError('credentials_missing', combineChallenges(...missing));
  const choose = createHandlerPicker(handlers);
  const pick = (request: AuthRequest) => {
    const handler = choose(request);
    return handler !== undefined && allowed.includes(handler) ? handler : undefined;
  };

  const nowOf = new Map(handlers.map((handler) => [handler, authenticateNowOf(handler)]));
  // The chosen mode's challenge first; the others add only the schemes it does not name. The
  // refusal says which mode refused, for its decision (audit line, metrics).
  const rechallenge = (error: unknown, method: Method): never => {
    if (!isAuthError(error)) throw error;
    // error.message: the refusal's own sentence (audience_strict's), not only its reason's.
    throw refusedBy(new AuthError(error.reason, combineChallenges(error.challenge, ...missing), error.message), method);
  };

  // Synchronous when the chosen mode answers synchronously (see AuthHandler.authenticateNow).
  function authenticateNow(request: AuthRequest): MaybePromise<AuthContext> {
    const handler = pick(request);
    if (handler === undefined) throw noCredentials;
    let answer: MaybePromise<AuthContext>;
    try {
      answer = nowOf.get(handler)!(request);
    } catch (error) {
      return rechallenge(error, handler.method);
    }
    return isPromiseLike(answer) ? answer.catch((error: unknown) => rechallenge(error, handler.method)) : answer;
  }

  return Object.freeze({
    method: ((allowed[0] ?? handlers[0]) as AuthHandler).method,
    ...fromAuthenticateNow(authenticateNow),
    describe: () => Object.fromEntries(handlers.map((handler) => [handler.method, handler.describe?.() ?? {}])),
    readiness: () => combineReadiness(handlers.map((handler) => handler.readiness?.() ?? { ready: true })),
    recognize: (request: AuthRequest) => {
      const handler = pick(request);
      return handler === undefined ? undefined : recognitionOf(handler, request);
    },
    credentialHeaders: [...new Set(handlers.flatMap((handler) => handler.credentialHeaders ?? []))],
    summary: () => handlers.map((handler) => `${handler.method}: ${summaryOf(handler)}`).join('; '),
    securitySchemes: () => handlers.flatMap((handler) => handler.securitySchemes?.() ?? []),
    authorizationServers: () => [...new Set(handlers.flatMap((handler) => handler.authorizationServers?.() ?? []))],
    senderConstraint: () => combineConstraints(handlers.map((handler) => handler.senderConstraint?.())),
    // The client's limits are said by the mode that made its context.
    limitsOf: (context: AuthContext) =>
      handlers.find((handler) => handler.method === context.method)?.limitsOf?.(context),
    clientOf: (decision: ClientDecision) =>
      handlers.find((handler) => handler.method === decision.method)?.clientOf?.(decision),
    credentialExpiry: (context: AuthContext, request: AuthRequest) =>
      handlers.find((handler) => handler.method === context.method)?.credentialExpiry?.(context, request) ?? null,
  });
}

/** What a handler says of its key material for the start-up line; a handler that does not say, so. */
export function summaryOf(handler: AuthHandler): string {
  return handler.summary?.() ?? 'not described by the handler';
}

/** A handler's challenge for a request without credentials, asked once at start-up. */
async function missingChallenge(handler: AuthHandler): Promise<string> {
  try {
    await handler.authenticate({ headers: {} });
  } catch (error) {
    if (isAuthError(error)) return error.challenge;
  }
  throw new Error(`the ${handler.method} handler accepts a request without credentials; it cannot be combined`);
}

/**
 * Which of `handlers` takes a request: the one that recognises its credential most surely, the
 * first on a tie; undefined when no handler finds a credential of its kind in it.
 *
 * @param handlers - in the order `auth.mode` lists them
 */
export function createHandlerPicker(
  handlers: readonly AuthHandler[],
): (request: AuthRequest) => AuthHandler | undefined {
  return (request) => {
    let best: AuthHandler | undefined;
    let bestRank = RECOGNITIONS.length;
    for (const handler of handlers) {
      const recognition = recognitionOf(handler, request);
      const rank = recognition === undefined ? RECOGNITIONS.length : RECOGNITIONS.indexOf(recognition);
      if (rank < bestRank) [best, bestRank] = [handler, rank];
      if (rank === 0) break;
    }
    return best;
  };
}

// A handler that does not say what it recognises judges any Authorization header, as a last resort.
function recognitionOf(handler: AuthHandler, request: AuthRequest): Recognition | undefined {
  if (handler.recognize !== undefined) return handler.recognize(request);
  return headerValues(request, 'authorization').length > 0 ? 'unlikely' : undefined;
}

/**
 * What several modes ask of a token's binding together: a binding is `required` only when every
 * mode requires it (a mode that does not bind takes unbound tokens), on when any mode has it on;
 * the DPoP algorithms of every mode that checks proofs.
 */
function combineConstraints(parts: readonly (SenderConstraintConfig | undefined)[]): SenderConstraintConfig {
  const modeOf = (pick: (part: SenderConstraintConfig) => ConstraintMode): ConstraintMode => {
    const modes = parts.map((part) => (part === undefined ? 'off' : pick(part)));
    if (modes.every((mode) => mode === 'required')) return 'required';
    return modes.some((mode) => mode !== 'off') ? 'allowed' : 'off';
  };
  return {
    dpop: modeOf((part) => part.dpop),
    dpopAlgorithms: [...new Set(parts.flatMap((part) => (part?.dpop === 'off' ? [] : (part?.dpopAlgorithms ?? []))))],
    certificateBound: modeOf((part) => part.certificateBound),
  };
}

function combineReadiness(states: readonly HandlerReadiness[]): HandlerReadiness {
  const keys = states.find((state) => state.keys !== undefined)?.keys;
  const ready = states.every((state) => state.ready);
  return Object.freeze(keys === undefined ? { ready } : { ready, keys });
}
