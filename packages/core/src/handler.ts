import type { AuthContext, AuthMethod } from './auth-context.js';
import type { AuthConfig, SenderConstraintConfig } from './config/auth-config.js';

/** The part of an HTTP request a handler may read: its headers, never its body. */
export interface AuthRequest {
  /** Header names in lower case, as Node's `IncomingMessage.headers` has them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * Optional: every header as sent, `[name, value, name, value, ...]`, as Node's
   * `IncomingMessage.rawHeaders` has them. When present, handlers read credentials from here (see
   * `headerValues`), so a repeated header is seen and never guessed.
   */
  readonly rawHeaders?: readonly string[];
  /**
   * Optional, for sender-constrained tokens (DPoP's `htm` and `htu`, RFC 9449 §4.3; the client
   * certificate, RFC 8705 §3). Express's `Request` has every one of them, so the middleware hands
   * its request on as it is. The method, upper case as sent (`GET`).
   */
  readonly method?: string;
  /** The request target as received, path and query (Express's `originalUrl`; else Node's `url`). */
  readonly originalUrl?: string;
  readonly url?: string;
  /** `http` or `https` (Express's `req.protocol`: the app's `trust proxy` setting decides whether `X-Forwarded-Proto` counts). */
  readonly protocol?: string;
  /** `host[:port]` the client addressed (Express 5's `req.host`, which honours `trust proxy` as `protocol` does). */
  readonly host?: string;
  /** The connection: a TLS socket gives the client certificate it verified. */
  readonly socket?: PeerSocket;
}

/** The part of a (TLS) socket that tells the client certificate (Node's `TLSSocket`). */
export interface PeerSocket {
  readonly remoteAddress?: string;
  /** `true` on a TLS socket. */
  readonly encrypted?: boolean;
  /** `true` when the TLS layer verified the client certificate against the configured CAs. */
  readonly authorized?: boolean;
  /** Node's `TLSSocket.getPeerCertificate`: `{}` (no `raw`) when the client sent none. */
  getPeerCertificate?(detailed: false): { readonly raw?: Uint8Array } | null | undefined;
}

/** Where handlers write what operators must see. Never given a secret. */
export interface Logger {
  /** What an operator may read: the start-up summary, a provider or store that answers again. */
  info(message: string): void;
  /** What an operator should act on: a fallback taken, a key due for rotation, a store down. */
  warn(message: string): void;
  /** A failure that cost a request its answer: an error handler's 500, a revocation check that threw. */
  error(message: string): void;
}

/** The state of a handler's keys, as `/healthz` shows it. */
export type KeyState = 'fresh' | 'stale' | 'unavailable' | 'not_fetched';

/** Whether a handler can verify a request now (`/readyz`). */
export interface HandlerReadiness {
  readonly ready: boolean;
  /** Absent for handlers whose keys are static (they are always ready). */
  readonly keys?: KeyState;
}

/**
 * What a handler tells operators about itself (`--check`, start-up lines): variables by NAME with
 * whether they are set, clients, expiry dates. JSON-serialisable, and never a secret or a digest.
 */
export type HandlerDescription = Readonly<Record<string, unknown>>;

/**
 * How sure a handler is that a request's credential is its kind, asked when several modes share a
 * route (`auth.mode: [api_key, jwt]`); the surest handler takes the request, the first listed on a
 * tie. From surest to least sure:
 * - `certain`: the credential has this mode's own shape or value (its own header, a compact JWS,
 *   a configured API key sent as Bearer);
 * - `likely`: a credential of the kind this mode takes, whose shape tells nothing more (an opaque
 *   Bearer token for introspection, a token in this mode's cookie);
 * - `possible`: this mode takes it only as a second use of a header (any Bearer value for API keys);
 * - `unlikely`: this mode would refuse it, but can say why (a Bearer value that is no JWS, for jwt).
 */
export type Recognition = 'certain' | 'likely' | 'possible' | 'unlikely';

/** {@link Recognition} from surest to least sure. */
export const RECOGNITIONS: readonly Recognition[] = Object.freeze(['certain', 'likely', 'possible', 'unlikely']);

/**
 * One OpenAPI 3.1 security scheme (or a part of one) that a handler checks. Parts of one `name`
 * from several handlers are merged into one scheme: their descriptions joined, and `bearerFormat`
 * kept only when every part that speaks of it (a string, or `null` for "no fixed format") names
 * the same format.
 */
export type SecuritySchemePart =
  | {
      /** The key in `components.securitySchemes`, e.g. `APIKeyHeader`. */
      readonly name: string;
      readonly type: 'apiKey';
      /** The header that carries the credential, as configured. */
      readonly header: string;
      readonly description: string;
    }
  | {
      readonly name: string;
      readonly type: 'http';
      /** `bearer` (RFC 6750) or `dpop` (RFC 9449 §7.1). */
      readonly scheme: 'bearer' | 'dpop';
      /** `JWT`; `null` when the tokens have no fixed format; absent when the part says nothing of it. */
      readonly bearerFormat?: string | null;
      readonly description: string;
    };

/** One authentication mode. */
export interface AuthHandler {
  readonly method: AuthMethod;
  /** Resolves with the caller's identity; rejects with `AuthError` and nothing else. */
  authenticate(request: AuthRequest): Promise<AuthContext>;
  /**
   * Optional: the same answers as `authenticate`, but in the same turn of the event loop when the
   * handler can decide without waiting (an API key, a cached token, a static key): it returns the
   * AuthContext itself, or throws `AuthError`, synchronously. When it must wait (a remote key set,
   * an introspection request) it returns a Promise, as `authenticate` does. The middleware prefers
   * it, so a synchronous answer calls `next()` without a promise turn. Build both from one function
   * with `fromAuthenticateNow` so they cannot disagree. Anything thrown that is not an AuthError is
   * a bug, and the middleware answers 500 (fail closed), as it does for `authenticate`.
   */
  authenticateNow?(request: AuthRequest): AuthContext | Promise<AuthContext>;
  /** Optional: what `--check` shows about this handler. Default: nothing. */
  describe?(): HandlerDescription;
  /** Optional: whether it can verify now. Default: always ready (a static key). */
  readiness?(): HandlerReadiness;
  /**
   * Optional: whether `request` carries this mode's kind of credential, and how surely (see
   * {@link Recognition}); `undefined` when it carries none. Several modes on one route send each
   * request to the surest. Default: `unlikely` when an Authorization header is present. Reads
   * headers only, never throws, and costs no network.
   */
  recognize?(request: AuthRequest): Recognition | undefined;
  /**
   * Optional: the request headers, lower case, that carry this mode's credentials besides
   * `authorization` (an API key header). With `auth.optional`, a request carrying one of them is
   * never let through anonymously.
   */
  readonly credentialHeaders?: readonly string[];
  /**
   * Optional: the files this mode reads key material from (absolute paths): with `reload.watch`,
   * a change to one of them reloads the config, as a change to the config file does.
   */
  readonly keyFiles?: readonly string[];
  /**
   * Optional: where this mode takes its key material from, for the start-up line: variable names
   * and URLs with user info and query values redacted, never a value.
   * Example: `environment variable SERVICE_API_KEY`.
   */
  summary?(): string;
  /** Optional: the OpenAPI security schemes of the credentials this mode checks. Default: none. */
  securitySchemes?(): readonly SecuritySchemePart[];
  /** Optional: the issuers whose tokens it accepts (RFC 9728 `authorization_servers`). Default: none. */
  authorizationServers?(): readonly string[];
  /**
   * Optional: how its tokens are bound to their sender (DPoP, client certificates), for RFC 9728's
   * `dpop_*` and `tls_client_certificate_bound_access_tokens`. Default: not at all.
   */
  senderConstraint?(): SenderConstraintConfig;
  /**
   * Optional: the limits of the client behind a context this handler made (API key clients'
   * `requests_per_minute` and `quota`), counted on `rate_limit`'s store. `undefined`: the common
   * `rate_limit.requests_per_minute` alone.
   */
  limitsOf?(context: AuthContext): ClientLimits | undefined;
  /**
   * Optional: the configured client a decision of this handler's mode names, for a metric label
   * whose values the config bounds, whatever clients send: API keys answer the key's `name`, and
   * `''` for a key that matched none. `undefined` (the default): the decision names no configured
   * client (a token's subject, an anonymous caller, another mode's decision).
   */
  clientOf?(decision: ClientDecision): string | undefined;
  /**
   * Optional: when the credential behind `context` (as `request` presented it) stops being
   * accepted, for connections held past their request (`auth.hold`) and MCP's `AuthInfo`. `null`:
   * it does not end by itself (an API key without `expires`). Reads no network, never throws.
   */
  credentialExpiry?(context: AuthContext, request: AuthRequest): CredentialExpiry | null;
}

/** When a credential ends: see {@link AuthHandler.credentialExpiry}. */
export interface CredentialExpiry {
  /** The credential's own end, in seconds since the epoch (a token's `exp`). */
  readonly expiresAt: number;
  /** From this instant on (milliseconds, the handler's clock) it is refused: `expiresAt` plus any leeway. */
  readonly refusedFrom: number;
  /** The reason of the 401 it then gets: `token_expired` (a token), `credentials_expired` (an API key). */
  readonly reason: 'token_expired' | 'credentials_expired';
}

/** What {@link AuthHandler.clientOf} reads of a decision. */
export interface ClientDecision {
  readonly method: AuthMethod;
  /** The context's `userId`; `null` for a refusal. */
  readonly userId: string | null;
}

/** One client's own limits (see `AuthHandler.limitsOf`). */
export interface ClientLimits {
  /** In place of `rate_limit.requests_per_minute`; `null`: the common one. */
  readonly requestsPerMinute: number | null;
  /** So many requests per UTC calendar day or month; `null`: none. */
  readonly quota: { readonly requests: number; readonly per: 'day' | 'month' } | null;
}

/**
 * Counters a handler may move, for operators' metrics (the service turns them into
 * `authlayer_key_fetches_total` and `authlayer_token_cache_total`). Each is optional, is called
 * once where the thing happens, and is never given a secret.
 */
export interface HandlerObserver {
  /** One fetch of a remote key set: `ok` (a 200) or `error` (any other answer, or none). */
  keyFetch?(result: 'ok' | 'error'): void;
  /** One lookup in a cache of verified tokens. */
  tokenCache?(result: 'hit' | 'miss'): void;
  /** One lookup of a presented API key among the configured ones (not made for a malformed key). */
  keyLookup?(result: 'hit' | 'miss'): void;
}

/**
 * Asked on every authenticated request (also when the token comes from a handler's cache):
 * `true` refuses it with 401 `token_revoked`. `claims` is the token's verified payload.
 */
export type RevocationCheck = (
  context: AuthContext,
  claims: Readonly<Record<string, unknown>>,
) => boolean | Promise<boolean>;

/**
 * A key-value store shared by every replica (Redis), for what one process learned and the others
 * may reuse (introspection answers). It never fails a request: a `get` that Redis cannot answer
 * resolves `undefined`, a `set` that it cannot take does nothing (the store warns once per outage).
 */
export interface SharedStore {
  /** The value of `key`, or `undefined` when there is none (or Redis cannot answer now). */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` under `key` for `ttlMs` milliseconds, on every replica. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

/**
 * What a handler may keep across a reload: a thing made for one source (a remote key set) is
 * handed to the handler of the next config when it asks with the same key, so a reload that
 * leaves a source unchanged costs it no fetch. Things no new handler asked for are closed (their
 * `close()`, when they have one) once the new config serves; a reload that fails closes what
 * it made.
 */
export interface ReloadCarry {
  /** The thing kept under `key` (its source and every setting it depends on), else `make()`'s. */
  keep<T extends object>(key: string, make: () => T): T;
}

/** What a handler is given besides its config, so tests can pin the clock and the environment. */
export interface HandlerDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Counters for metrics; default: none. */
  readonly observe?: HandlerObserver;
  /** Milliseconds since the epoch; defaults to `Date.now`. */
  readonly now?: () => number;
  /** Optional revocation hook; JWT mode asks it (see {@link RevocationCheck}). */
  readonly isRevoked?: RevocationCheck;
  /**
   * Optional: connects a {@link SharedStore} at a config's Redis URL (`auth.oauth2.cache_store`);
   * `path` is the config field, for its log lines. `@authlayer/express` gives it (with ioredis)
   * and closes what it opened with `auth.close()`.
   */
  readonly connectStore?: (url: string, path: string) => Promise<SharedStore>;
  /**
   * Where one-time values (DPoP proofs' `jti`) are remembered; default: each handler's own memory.
   * Give one shared by every replica so that a proof replayed to another one is refused too.
   */
  readonly replayCache?: ReplayCache;
  /** Given by a middleware that reloads: see {@link ReloadCarry}. Default: nothing is kept. */
  readonly carry?: ReloadCarry;
  /**
   * For a mode package outside this repository: its `auth` section (`auth.hmac`) as its
   * `configSchema` returned it (defaults filled in, converted as the schema converts), or as
   * written when the package exports no schema; `undefined` when the config has none.
   */
  readonly section?: unknown;
}

/**
 * Remembers one-time values for a while (RFC 9449 §11.1: a DPoP proof's `jti` for as long as its
 * `iat` is accepted). Keys are digests, never a client's own text.
 */
export interface ReplayCache {
  /**
   * Records `key` for `ttlMs` and answers `true` when it was not already recorded (and unexpired):
   * the first use. `false` is a replay. Atomic: of two concurrent calls with one key, one wins.
   * Rejects or throws when it cannot tell (the request is then refused: fail closed).
   */
  firstSeen(key: string, ttlMs: number): boolean | Promise<boolean>;
}

/**
 * The one name every mode package exports (`export const createHandler`), so the loader in
 * `@authlayer/express` stays generic. Does all start-up work (reading env vars, importing keys)
 * and throws `ConfigError` when something is missing.
 */
export type CreateHandler = (config: AuthConfig, deps: HandlerDeps) => Promise<AuthHandler>;
