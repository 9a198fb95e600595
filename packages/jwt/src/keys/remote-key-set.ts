import { bearerError } from '@authlayer/core';
import type { HandlerObserver, KeyState, Logger } from '@authlayer/core';
import { discoverEndpoint, FetchFailure, fetchJsonObject } from '@authlayer/core/internal';
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

  const usable = (at: number): boolean => keys !== null && at - fetchedAt < maxAgeMs + staleMs;
  const due = (at: number): boolean => keys === null || at - fetchedAt >= maxAgeMs;
  const allowed = (at: number): boolean => !failed || at - attemptedAt >= cooldownMs;

  async function load(): Promise<void> {
    attemptedAt = now();
    try {
      const url =
        'jwksUrl' in location
          ? location.jwksUrl
          : await discoverEndpoint(location.issuer, 'jwks_uri', { timeoutMs, observe });
      const document = await fetchJsonObject(url, {
        timeoutMs,
        maxBytes: MAX_KEY_SET_BYTES,
        init: ACCEPT_JSON,
        observe,
      });
      keys = createLocalJWKSet(checkKeySet(document));
      fetchedAt = now();
      if (failed) logger.info(`${label}: the key set can be read again`);
      failed = false;
    } catch (error) {
      failed = true;
      // Every failure of discovery and fetch is a FetchFailure; a key set that passed checkKeySet
      // is accepted by createLocalJWKSet.
      const { kind: cause, level } = error as FetchFailure;
      const after = usable(now())
        ? `the last good key set serves until ${new Date(fetchedAt + maxAgeMs + staleMs).toISOString()}`
        : 'tokens are refused until it can';
      logger[level](`${label}: the key set cannot be read (${cause}); ${after}`);
    }
  }
  const refresh = (): Promise<void> => (pending ??= load().finally(() => (pending = null)));

  const getKey: JWTVerifyGetKey = async (header, token) => {
    const at = now();
    if (due(at) && allowed(at)) await refresh();
    else if (pending !== null) await pending;
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
    usable: () => usable(now()),
    warm() {
      const at = now();
      return due(at) && allowed(at) ? refresh() : (pending ?? Promise.resolve());
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
