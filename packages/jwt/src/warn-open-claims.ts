import type { JwtProviderConfig } from './config/jwt-section.js';
import type { Logger } from '@authlayer/core';

/**
 * One start-up warning line when tokens are not tied to an issuer or to this API: without
 * `issuer` a token of any issuer is accepted, without `audience` a token meant for any other API,
 * as long as the configured key signed it (a shared signing key across APIs is common). Not a
 * failure: a config that was valid keeps its meaning; the line says what to set.
 *
 * @param providers - `auth.jwt` alone, or each entry of `auth.jwt.providers` (which always has an issuer)
 */
export function warnAboutOpenClaims(providers: readonly JwtProviderConfig[], several: boolean, logger: Logger): void {
  if (!several) {
    const [jwt] = providers as [JwtProviderConfig];
    const missing = [jwt.issuer === null && 'issuer', jwt.audience === null && 'audience'].filter(
      (field): field is string => field !== false,
    );
    if (missing.length === 0) return;
    const what = [jwt.issuer === null && 'from any issuer', jwt.audience === null && 'for any API'].filter(Boolean);
    logger.warn(
      `auth.jwt has ${missing.map((field) => `no ${field}`).join(' and ')}: tokens ${what.join(' and ')} signed by its key are accepted; set ${missing.join(' and ')}`,
    );
    return;
  }
  const open = providers.flatMap((provider, index) =>
    provider.audience === null ? [`auth.jwt.providers[${index}]`] : [],
  );
  if (open.length === 0) return;
  const [verb, keys] = open.length === 1 ? ['has', 'its key'] : ['have', 'their keys'];
  logger.warn(
    `${joinNames(open)} ${verb} no audience: tokens for any API signed by ${keys} are accepted; set audience`,
  );
}

/** `a`, `a and b`, `a, b and c`. */
function joinNames(names: readonly string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}
