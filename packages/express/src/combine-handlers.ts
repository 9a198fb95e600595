import {
  AuthError,
  authenticateNowOf,
  combineChallenges,
  fromAuthenticateNow,
  headerValues,
  isAuthError,
  isPromiseLike,
  readBearerToken,
  type AuthConfig,
  type AuthContext,
  type MaybePromise,
  type AuthHandler,
  type AuthRequest,
  type HandlerReadiness,
} from '@authlayer/core';

type Method = AuthHandler['method'];

// Which mode a request's credential went to, for the decision (audit line, metrics) of a refusal.
const tried = new WeakMap<object, Method>();

/** The mode a combined handler chose for `request`, or undefined (one mode, or no credential). */
export function modeTriedFor(request: object): Method | undefined {
  return tried.get(request);
}

/**
 * One handler for several modes on one route (`auth.mode: [api_key, jwt]`). The credential picks
 * the mode: the API key header → `api_key`; `Authorization: Bearer` holding a compact JWS → `jwt`;
 * any other Bearer value → `api_key` when it allows Bearer, else `oauth2` (an opaque token) when
 * listed, else `jwt`. A Bearer API key is thus never sent to an introspection endpoint: to combine
 * `api_key` and `oauth2`, turn `allow_bearer` off. The chosen mode alone
 * answers, so its reason and message stand; a refusal's `WWW-Authenticate` lists every mode's
 * challenge, the chosen one's first. No credential for any mode → `credentials_missing` with
 * every challenge.
 *
 * @param handlers - at least two, of distinct methods, in the order `auth.mode` lists them
 */
export async function combineHandlers(handlers: readonly AuthHandler[], config: AuthConfig): Promise<AuthHandler> {
  const byMethod = new Map(handlers.map((handler) => [handler.method, handler]));
  const missing = await Promise.all(handlers.map(missingChallenge));
  const noCredentials = new AuthError('credentials_missing', combineChallenges(...missing));
  const pick = createPicker(byMethod, config);

  const nowOf = new Map(handlers.map((handler) => [handler, authenticateNowOf(handler)]));
  // The chosen mode's challenge first; the others add only the schemes it does not name.
  const rechallenge = (error: unknown): never => {
    if (!isAuthError(error)) throw error;
    throw new AuthError(error.reason, combineChallenges(error.challenge, ...missing));
  };

  // Synchronous when the chosen mode answers synchronously (see AuthHandler.authenticateNow).
  function authenticateNow(request: AuthRequest): MaybePromise<AuthContext> {
    const handler = pick(request);
    if (handler === undefined) throw noCredentials;
    tried.set(request, handler.method);
    let answer: MaybePromise<AuthContext>;
    try {
      answer = nowOf.get(handler)!(request);
    } catch (error) {
      return rechallenge(error);
    }
    return isPromiseLike(answer) ? answer.catch(rechallenge) : answer;
  }

  return Object.freeze({
    method: (handlers[0] as AuthHandler).method,
    ...fromAuthenticateNow(authenticateNow),
    describe: () => Object.fromEntries(handlers.map((handler) => [handler.method, handler.describe?.() ?? {}])),
    readiness: () => combineReadiness(handlers.map((handler) => handler.readiness?.() ?? { ready: true })),
  });
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

function createPicker(byMethod: ReadonlyMap<Method, AuthHandler>, config: AuthConfig) {
  const apiKey = byMethod.get('api_key');
  const jwt = byMethod.get('jwt');
  const oauth2 = byMethod.get('oauth2');
  const header = config.apiKeys.header.toLowerCase();
  const bearerToApiKey = apiKey !== undefined && config.apiKeys.allowBearer;
  return (request: AuthRequest): AuthHandler | undefined => {
    // The handlers' own reading (rawHeaders, empty = not sent), so picker and handler agree.
    if (apiKey !== undefined && headerValues(request, header).length > 0) return apiKey;
    const bearer = readBearerToken(request);
    if (bearer.kind === 'absent') return undefined;
    if (jwt !== undefined && bearer.kind === 'token' && isCompactJws(bearer.token)) return jwt;
    return bearerToApiKey ? apiKey : (oauth2 ?? jwt ?? apiKey);
  };
}

const BASE64URL_PARTS = /^([A-Za-z0-9_-]{2,4096})\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * True for a compact JWS (RFC 7515 §7.1): three base64url parts whose first decodes to a JSON
 * object with a string `alg`. An API key with dots (`prod.key.v1`) is not one.
 */
export function isCompactJws(token: string): boolean {
  const header = BASE64URL_PARTS.exec(token)?.[1];
  if (header === undefined) return false;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

function combineReadiness(states: readonly HandlerReadiness[]): HandlerReadiness {
  const keys = states.find((state) => state.keys !== undefined)?.keys;
  const ready = states.every((state) => state.ready);
  return Object.freeze(keys === undefined ? { ready } : { ready, keys });
}
