import { bearerError } from '@authlayer/core';
import type { Provider } from './provider.js';
import { decodeSegment, parseJsonObject } from './verify/decode-jws.js';
import { MAX_TOKEN_BYTES } from './verify/verify-token.js';

/** Picks the provider that verifies a token. */
export type ProviderSelector = (token: string) => Provider;

/**
 * With one issuer (`auth.jwt` itself), always that one: its verifier checks `iss` when
 * `issuer` is set. With `providers`, the token's `iss` picks the entry whose `issuer` equals it
 * exactly, read from the still unverified payload BEFORE any key is fetched; a token whose
 * `iss` is unknown, absent or not a string is refused with `issuer_mismatch` and costs no
 * provider a request. The chosen provider then verifies everything, `iss` included.
 *
 * @throws AuthError `issuer_mismatch`, or `token_malformed` for a payload that is not JSON.
 */
export function createProviderSelector(providers: readonly Provider[], several: boolean): ProviderSelector {
  const only = providers[0] as Provider;
  if (!several) return () => only;
  const byIssuer = new Map(providers.map((provider) => [provider.config.issuer as string, provider]));
  return (token) => {
    const first = token.indexOf('.');
    const last = token.lastIndexOf('.');
    if (token.length > MAX_TOKEN_BYTES || first === last) throw bearerError('token_malformed');
    const { iss } = parseJsonObject(decodeSegment(token.slice(first + 1, last)));
    const provider = typeof iss === 'string' ? byIssuer.get(iss) : undefined;
    if (provider === undefined) throw bearerError('issuer_mismatch');
    return provider;
  };
}
