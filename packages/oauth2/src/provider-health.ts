import type { Logger } from '@authlayer/core';
import { FetchFailure } from '@authlayer/core/internal';

/** Whether the provider answered the last time it was asked, told to operators once per change. */
export interface ProviderHealth {
  succeeded(): void;
  failed(error: unknown): void;
  /** `not_fetched` before the first answer, then `fresh` or `unavailable`. */
  state(): 'not_fetched' | 'fresh' | 'unavailable';
}

/**
 * Logs one warning when the provider stops giving usable answers (with a short cause, never the
 * answer, the token or the secret) and one line when it gives them again.
 */
export function createProviderHealth(logger: Logger): ProviderHealth {
  let state: 'not_fetched' | 'fresh' | 'unavailable' = 'not_fetched';
  return {
    succeeded() {
      if (state === 'unavailable') logger.info('auth.oauth2: the introspection endpoint answers again');
      state = 'fresh';
    },
    failed(error) {
      const known = error instanceof FetchFailure;
      const cause = known ? error.kind : 'an unexpected error';
      if (state !== 'unavailable') {
        // A misconfiguration (metadata naming another issuer) is an error, an outage a warning.
        logger[known ? error.level : 'warn'](
          `auth.oauth2: the introspection endpoint cannot be used (${cause}); tokens are refused until it can`,
        );
      }
      state = 'unavailable';
    },
    state: () => state,
  };
}
