import { AuthError, bearerChallenge, type HandlerObserver, type Logger } from '@authlayer/core';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { joseErrorCode } from '../verify/translate-jose-error.js';

/**
 * Tuning of the remote key set. Not part of the config file: a library user may pass it as
 * `deps.jwks` to `createJwtHandler`; tests use it to keep timeouts short.
 */
export interface JwksOptions {
  /** How long one fetch of the key set may take. Default 5000 ms. */
  readonly timeoutMs?: number;
  /** After a fetch, an unknown `kid` causes no new fetch for this long. Default 30000 ms. */
  readonly cooldownMs?: number;
  /** How long a fetched key set is used before it is fetched again. Default 600000 ms (10 min). */
  readonly cacheMaxAgeMs?: number;
}

/** The defaults of {@link JwksOptions}. */
export const JWKS_DEFAULTS = Object.freeze({ timeoutMs: 5_000, cooldownMs: 30_000, cacheMaxAgeMs: 600_000 });

const PATH = 'auth.jwt.jwks_url';
// What the key set may answer when the token names no key it has: that is the token's fault.
const TOKEN_FAULTS = new Set(['ERR_JWKS_NO_MATCHING_KEY', 'ERR_JWKS_MULTIPLE_MATCHING_KEYS']);

/**
 * A key resolver over the JSON Web Key Set at `url`, built on jose's `createRemoteJWKSet`:
 * the set is fetched on first use and cached; an unknown `kid` refetches at most once per
 * cool-down; a fetch is aborted after `timeoutMs`; redirects are not followed. Only the
 * configured URL is ever fetched: the token header's `jku`, `x5u`, `jwk` and `x5c` are ignored
 * (RFC 8725 §3.10).
 *
 * When the set cannot be read (network error, timeout, a status other than 200, not a key set)
 * the resolver rejects with `AuthError('key_unavailable')`, and the logger is told once per
 * outage, and once when the set can be read again. Nothing is fetched at start-up, so a
 * provider that is down then does not stop the service.
 */
export function createRemoteKeySet(
  url: string,
  logger: Logger,
  options: JwksOptions = {},
  observe?: HandlerObserver,
): JWTVerifyGetKey {
  const getKey = createRemoteJWKSet(new URL(url), {
    timeoutDuration: options.timeoutMs ?? JWKS_DEFAULTS.timeoutMs,
    cooldownDuration: options.cooldownMs ?? JWKS_DEFAULTS.cooldownMs,
    cacheMaxAge: options.cacheMaxAgeMs ?? JWKS_DEFAULTS.cacheMaxAgeMs,
    // Every fetch jose makes passes here once, so the counter sees fetches, not key lookups.
    [customFetch]: async (...args: Parameters<typeof fetch>) => {
      try {
        const response = await fetch(...args);
        observe?.keyFetch?.(response.status === 200 ? 'ok' : 'error');
        return response;
      } catch (error) {
        observe?.keyFetch?.('error');
        throw error;
      }
    },
  });
  let down = false;
  const markReadable = (): void => {
    if (down) logger.info(`${PATH}: the key set can be read again`);
    down = false;
  };
  return async (header, token) => {
    try {
      const key = await getKey(header, token);
      markReadable();
      return key;
    } catch (error) {
      const code = joseErrorCode(error);
      if (TOKEN_FAULTS.has(code)) {
        markReadable();
        throw error;
      }
      if (!down) logger.warn(`${PATH}: the key set cannot be read (${describeFailure(code)}); tokens are refused until it can`);
      down = true;
      throw new AuthError('key_unavailable', bearerChallenge('key_unavailable'));
    }
  };
}

/** A short cause for operators, never the body of the answer. */
function describeFailure(code: string): string {
  switch (code) {
    case 'ERR_JWKS_TIMEOUT':
      return 'timed out';
    case 'ERR_JWKS_INVALID':
      return 'the answer is not a valid key set';
    case 'ERR_JOSE_GENERIC':
      return 'the answer was not a 200 with JSON';
    default:
      return 'the request failed, or a key in the answer is unusable';
  }
}
