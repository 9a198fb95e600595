import {
  AuthError,
  bearerChallenge,
  combineChallenges,
  isAuthError,
  type AuthContext,
  type AuthHandler,
  type AuthMethod,
  type AuthRequest,
  type HandlerReadiness,
  type Logger,
  type MaybePromise,
  type RevocationConfig,
} from '@authlayer/core';
import { isPromiseLike, splitChallenges } from '@authlayer/core/internal';
import { importWithPeers } from '../optional-peers.js';
import { refusedBy } from '../request/mode-tried.js';
import { checkRevocationEntry, checkRevocationTtl, type Revocation, type RevokeOptions } from './revocation-entry.js';
import { isChangeNotSent } from './revocation-commands.js';
import type { RevocationState, RevocationStore } from './revocation-store.js';

type Authenticate = (request: AuthRequest) => MaybePromise<AuthContext>;

/** The revocation list of a middleware: its store, and the check around each handler. */
export interface RevocationFlow {
  readonly store: RevocationStore;
  /** `authenticate`, then the list: a revoked credential is 401 `token_revoked`, cache hits included. */
  wrap(authenticate: Authenticate): Authenticate;
}

/**
 * Follows `revocation.store` (ioredis, an optional peer, imported only then), or takes the store
 * that `existing` already follows, and builds the check.
 * Each mode's refusal keeps its own challenge (an API key client gets the `ApiKey` one), learned
 * once from what the handler answers a request without credentials.
 */
export async function createRevocationFlow(
  config: RevocationConfig,
  handlers: readonly AuthHandler[],
  logger: Logger,
  now: () => number,
  existing?: RevocationStore,
): Promise<RevocationFlow> {
  const { followRevocations } = await importWithPeers(
    () => import('./revocation-store.js'),
    ['ioredis'],
    'revocation.store',
  );
  const refusals = await refusalsOf(handlers);
  // A reload passes the store that already follows the list: one connection for every generation.
  const store = existing ?? (await followRevocations(config.store, logger, now));
  const judge = (context: AuthContext): AuthContext => {
    if (!store.isRevoked(context)) return context;
    throw refusals.get(context.method) ?? DEFAULT_REFUSAL;
  };
  return {
    store,
    wrap: (authenticate) => (request) => {
      const answer = authenticate(request);
      return isPromiseLike(answer) ? answer.then(judge) : judge(answer);
    },
  };
}

const DEFAULT_REFUSAL = new AuthError('token_revoked', bearerChallenge('token_revoked'));
const REVOKED_KEY = 'the key has been revoked';

/**
 * Per method: `token_revoked` with the challenge its mode sends (the Bearer part saying why), and
 * with several modes the others' challenges after it, as a refusal of the combined modes has them.
 */
async function refusalsOf(handlers: readonly AuthHandler[]): Promise<Map<AuthMethod, AuthError>> {
  const missing = new Map<AuthMethod, string>();
  for (const handler of handlers) {
    const refusal: unknown = await handler.authenticate({ headers: {} }).catch((error: unknown) => error);
    if (isAuthError(refusal)) missing.set(handler.method, refusal.challenge);
  }
  const refusals = new Map<AuthMethod, AuthError>();
  for (const [method, challenge] of missing) {
    // A mode whose own challenge is `ApiKey` gives its clients keys: the words name a key (the
    // reason stays token_revoked, the contract's), in the body and in the Bearer part alike.
    const description = /^ApiKey\b/i.test(challenge) ? REVOKED_KEY : undefined;
    const own = splitChallenges(challenge)
      .map((part) => (/^Bearer\b/i.test(part) ? bearerChallenge('token_revoked', description) : part))
      .join(', ');
    const others = [...missing].filter(([other]) => other !== method).map(([, value]) => value);
    refusals.set(
      method,
      refusedBy(new AuthError('token_revoked', combineChallenges(own, ...others), description), method),
    );
  }
  return refusals;
}

/** What the middleware offers of the list (see `AuthMiddleware.revoke`). */
export interface RevocationApi {
  /** See `AuthMiddleware.revoke`. */
  revoke(entry: string, options?: RevokeOptions): Promise<Revocation>;
  /** See `AuthMiddleware.unrevoke`. */
  unrevoke(entry: string): Promise<boolean>;
  /** See `AuthMiddleware.revocations`. */
  revocations(): Promise<Revocation[]>;
}

const NOT_SENT =
  'Redis is unreachable; the change was not applied (nothing was sent); make it again once Redis is back';
const UNKNOWN =
  'Redis did not answer in time; the outcome is unknown (the change may have been applied); calling it again is safe';
const NOT_CONFIGURED = 'revocation.store is not configured: add a revocation section with a redis:// store';

/**
 * `auth.revoke`, `auth.unrevoke`, `auth.revocations`. A change is applied to this process's copy
 * as soon as Redis took it (the other replicas are told by Redis), so the next request here sees it.
 */
export function revocationApi(flow: RevocationFlow | null): RevocationApi {
  const store = (): RevocationStore => {
    if (flow === null) throw new Error(NOT_CONFIGURED);
    return flow.store;
  };
  // ioredis's own messages ("Stream isn't writeable ...") say little to a caller: one of ours. A
  // change never sent (Redis down, or known not to answer) was not applied; one sent and not
  // answered may still be (a paused Redis runs the queued command when it goes on), so it is never
  // called unchanged; revoke and unrevoke are idempotent, so say so.
  const failed = (message: string) => (error: unknown) => {
    throw new Error(`revocation.store: ${message}`, { cause: error });
  };
  const change = <T>(call: Promise<T>): Promise<T> =>
    call.catch((error: unknown) => failed(changeFailure(error))(error));
  const read = <T>(call: Promise<T>): Promise<T> => call.catch(failed('Redis did not answer; nothing was read'));
  return {
    revoke: async (entry, options = {}) => {
      const checked = checkRevocationEntry(entry);
      const ttl = checkRevocationTtl(options.ttlSeconds);
      const made = await change(store().revoke(checked, ttl));
      store().apply(checked, Date.parse(made.expiresAt));
      return made;
    },
    unrevoke: async (entry) => {
      const checked = checkRevocationEntry(entry);
      const removed = await change(store().unrevoke(checked));
      store().apply(checked, null);
      return removed;
    },
    revocations: async () => read(store().list()),
  };
}

/** What a change that failed did: not sent, refused by Redis (an answer: the list is as it was), or unknown. */
function changeFailure(error: unknown): string {
  if (isChangeNotSent(error)) return NOT_SENT;
  const code = refusalCode(error);
  return code === null ? UNKNOWN : `Redis refused the change (${code}); the list was not changed`;
}

/**
 * The code of an error Redis answered with (ioredis's `ReplyError`: `WRONGTYPE`, `NOPERM`, `OOM`;
 * a transaction discarded, `EXECABORT`, is named by the command that made it so, `READONLY` on a
 * replica during a failover), or null for anything else. Only the code: Redis's text may quote a key.
 */
function refusalCode(error: unknown): string | null {
  if (!(error instanceof Error) || error.name !== 'ReplyError') return null;
  const { previousErrors } = error as { previousErrors?: readonly unknown[] };
  const first = previousErrors?.[0];
  const message = first instanceof Error ? first.message : error.message;
  return /^[A-Z]+\b/.exec(message)?.[0] ?? 'ERR';
}

/** The handler's readiness, and the list's: not ready until the list was loaded once. */
export function readinessWith(readiness: HandlerReadiness, flow: RevocationFlow | null): AuthReadiness {
  if (flow === null) return readiness;
  const revocations = flow.store.state();
  return { ...readiness, ready: readiness.ready && revocations !== 'unavailable', revocations };
}

/** What `auth.readiness()` says: the handler's readiness, and the revocation list's state when there is one. */
export interface AuthReadiness extends HandlerReadiness {
  /** With `revocation.store`: `unavailable` until the list was loaded once (then not ready). */
  readonly revocations?: RevocationState;
}
