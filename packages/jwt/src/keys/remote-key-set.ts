import { bearerError } from '@authlayer/core';
import type { HandlerObserver, KeyState, Logger } from '@authlayer/core';
import { discoverEndpoint, FetchFailure, fetchJsonObject, inSpan } from '@authlayer/core/internal';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { joseErrorCode } from '../verify/translate-jose-error.js';

// Real key sets are a few KiB; refuse to buffer more than this.
const MAX_KEY_SET_BYTES = 1024 * 1024;
const ACCEPT_JSON = { headers: { accept: 'application/json' } };

/**
 * Tuning of the remote key set. Not part of the config file: a library user may pass it as
 * `deps.jwks` to `createJwtHandler`; tests use it to keep timeouts short.
 */
export interface JwksOptions {
  /** How long one fetch (of the discovery document, then of the key set) may take. Default 5000 ms. */
  readonly timeoutMs?: number;
  /** After a fetch, an unknown `kid` causes no new fetch for this long; nor does a failed fetch. Default 30000 ms. */
  readonly cooldownMs?: number;
  /** How long a fetched key set is used before it is fetched again. Default 600000 ms (10 min). */
  readonly cacheMaxAgeMs?: number;
}

/** The share of `cacheMaxAgeMs` after which a key set in use is refreshed in the background. */
const REFRESH_AHEAD = 0.8;

/** The defaults of {@link JwksOptions}. */
export const JWKS_DEFAULTS = Object.freeze({ timeoutMs: 5_000, cooldownMs: 30_000, cacheMaxAgeMs: 600_000 });

/** Where the key set is: its URL, or the issuer whose OpenID configuration names it. */
export type KeySetLocation = { readonly jwksUrl: string } | { readonly issuer: string };

/** What a remote key set needs besides its location. */
export interface RemoteKeySetSettings extends JwksOptions {
  readonly logger: Logger;
  readonly now: () => number;
  /** `stale_keys_seconds`, in ms. */
  readonly staleMs: number;
  /** The config path named in log lines, e.g. `auth.jwt.providers[1]`. */
  readonly label: string;
  /** Told of each HTTP fetch (discovery document or key set): `ok` for a 200, else `error`. */
  readonly observe?: HandlerObserver;
}

/** A key resolver over a remote key set, and what operators see of it. */
export interface RemoteKeySet {
  readonly getKey: JWTVerifyGetKey;
  /** `fresh`, `stale` (a refresh failed, the last good set still serves), `unavailable`, `not_fetched`. */
  state(): KeyState;
  /** Whether the last good set is within its age + `stale_keys_seconds` now, whatever was attempted. */
  usable(): boolean;
  /** Starts a fetch when one is due and allowed (for readiness probes); resolves when it is done. */
  warm(): Promise<void>;
  /** Stops the background refresh (a reload dropped this source, or the middleware closed). */
  close(): void;
}

// What the key set may answer when the token names no key it has: that is the token's fault.
const TOKEN_FAULTS = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS']);

/**
 * A key set fetched on first use (never at start-up), cached for `cacheMaxAgeMs`, then fetched
 * again, with the discovery document first when the location is an issuer. A fetch is
 * aborted after `timeoutMs`; redirects are not followed; only the configured (or discovered)
 * URL is fetched, never the token header's `jku`, `x5u`, `jwk` or `x5c` (RFC 8725 §3.10).
 *
 * - Concurrent requests share one fetch. An unknown `kid` refetches at most once per
 *   `cooldownMs`; after a failed fetch, none is tried for `cooldownMs` either, so a flood during
 *   an outage costs the provider one request per cool-down.
 * - Refresh-ahead: once a set in use is `0.8 × cacheMaxAgeMs` old, it is fetched again in the
 *   background (by a timer, and by the first request past that age), and requests keep being
 *   verified with the set they have meanwhile; so, while the provider answers, the set never
 *   reaches `cacheMaxAgeMs` and no request after the first waits for a fetch. A request waits
 *   only for the first fetch, for a set that did reach its age (a refresh failed, or the process
 *   slept), and for an unknown `kid` (a rotation). The timer refreshes only a set used since its
 *   last fetch, so an abandoned handler costs the provider at most one more request; it never
 *   keeps a process alive, and `close()` stops it.
 * - Bounded stale-if-error: when a refresh fails, the last good set keeps serving until
 *   `cacheMaxAgeMs + staleMs` after it was fetched; then `AuthError('key_unavailable')`.
 *   Each failed fetch logs one warning (an error when a discovery document names another
 *   issuer); the first success after a failure logs one line.
 */
export function createRemoteKeySet(location: KeySetLocation, settings: RemoteKeySetSettings): RemoteKeySet {
  const { logger, now, staleMs, label } = settings;
  const observe = (result: 'ok' | 'error'): void => settings.observe?.keyFetch?.(result);
  const timeoutMs = settings.timeoutMs ?? JWKS_DEFAULTS.timeoutMs;
  const cooldownMs = settings.cooldownMs ?? JWKS_DEFAULTS.cooldownMs;
  const maxAgeMs = settings.cacheMaxAgeMs ?? JWKS_DEFAULTS.cacheMaxAgeMs;
  let keys: JWTVerifyGetKey | null = null;
  let fetchedAt = 0;
  let attemptedAt = 0;
  let failed = false;
  let pending: Promise<void> | null = null;
  let used = false;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  const usable = (at: number): boolean => keys !== null && at - fetchedAt < maxAgeMs + staleMs;
  const due = (at: number): boolean => keys === null || at - fetchedAt >= maxAgeMs;
  const dueAhead = (at: number): boolean => at - fetchedAt >= maxAgeMs * REFRESH_AHEAD;
  const allowed = (at: number): boolean => !failed || at - attemptedAt >= cooldownMs;

  /** The next background refresh: ahead of the set's age after a success, a cool-down after a failure. */
  function schedule(): void {
    // cacheMaxAgeMs 0 fetches for every request already: nothing to refresh ahead of.
    if (closed || maxAgeMs === 0) return;
    if (timer !== null) clearTimeout(timer);
    const delay = failed ? cooldownMs : maxAgeMs * REFRESH_AHEAD;
    timer = setTimeout(() => {
      timer = null;
      // Only a set in use: an abandoned handler's timer stops here.
      if (!used) return;
      used = false;
      void refresh();
    }, delay);
    timer.unref();
  }

  async function load(): Promise<void> {
    attemptedAt = now();
    try {
      // A child span of the decision that started it (a refresh-ahead's, when in the background).
      const document = await inSpan('authlayer.key_set.fetch', { 'authlayer.config': label }, async () => {
        const url =
          'jwksUrl' in location
            ? location.jwksUrl
            : await discoverEndpoint(location.issuer, 'jwks_uri', { timeoutMs, observe });
        return fetchJsonObject(url, { timeoutMs, maxBytes: MAX_KEY_SET_BYTES, init: ACCEPT_JSON, observe });
      });
      keys = createLocalJWKSet(checkKeySet(document));
      fetchedAt = now();
      if (failed) logger.info(`${label}: the key set can be read again`);
      failed = false;
      schedule();
    } catch (error) {
      failed = true;
      // Every failure of discovery and fetch is a FetchFailure; a key set that passed checkKeySet
      // is accepted by createLocalJWKSet.
      const { kind: cause, level } = error as FetchFailure;
      const after = usable(now())
        ? `the last good key set serves until ${new Date(fetchedAt + maxAgeMs + staleMs).toISOString()}`
        : 'tokens are refused until it can';
      logger[level](`${label}: the key set cannot be read (${cause}); ${after}`);
      if (keys !== null) schedule();
    }
  }
  const refresh = (): Promise<void> => (pending ??= load().finally(() => (pending = null)));

  const getKey: JWTVerifyGetKey = async (header, token) => {
    const at = now();
    used = true;
    if (pending !== null) {
      // A fetch under way is waited for only by a request that has no usable set meanwhile.
      if (!usable(at)) await pending;
    } else if (due(at) && allowed(at)) await refresh();
    // Refresh-ahead: this request is verified with the set it has; the fetch runs meanwhile.
    else if (dueAhead(at) && allowed(at)) void refresh();
    if (!usable(now())) throw bearerError('key_unavailable');
    try {
      return await (keys as JWTVerifyGetKey)(header, token);
    } catch (error) {
      // RFC 7517 §4.5: a new `kid` may be a rotation; look again, at most once per cool-down.
      if (!TOKEN_FAULTS.has(joseErrorCode(error)) || now() - attemptedAt < cooldownMs) throw error;
      // After a failed refresh the last set (still usable a moment ago) answers again.
      await refresh();
      return (keys as JWTVerifyGetKey)(header, token);
    }
  };

  return {
    getKey,
    state() {
      if (keys === null) return failed ? 'unavailable' : 'not_fetched';
      if (!failed) return 'fresh';
      return usable(now()) ? 'stale' : 'unavailable';
    },
    usable: () => {
      // Asked for every cached token: a set that serves only cache hits is in use too.
      used = true;
      return usable(now());
    },
    warm() {
      const at = now();
      return due(at) && allowed(at) ? refresh() : (pending ?? Promise.resolve());
    },
    close() {
      closed = true;
      if (timer !== null) clearTimeout(timer);
    },
  };
}

/**
 * A JWK Set of public keys (RFC 7517 §5). A set that publishes a private or symmetric key
 * (`d`, `k`) is refused whole: its publisher is not to be trusted with verification.
 */
function checkKeySet(value: Record<string, unknown>): JSONWebKeySet {
  const { keys } = value;
  const valid =
    Array.isArray(keys) &&
    keys.every(
      (key) => typeof key === 'object' && key !== null && !Array.isArray(key) && !('d' in key) && !('k' in key),
    );
  if (!valid) throw new FetchFailure('the answer is not a valid key set');
  return value as unknown as JSONWebKeySet;
}
