import { fetchJson, KeyFetchError, type FetchObserver } from './fetch-json.js';

/** The URL of the OpenID configuration of `issuer` (OpenID Connect Discovery 1.0 §4). */
export function discoveryUrl(issuer: string): string {
  // §4.1: a trailing `/` of the issuer is removed before the well-known path is appended.
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

/**
 * Reads `<issuer>/.well-known/openid-configuration` and returns its `jwks_uri`. The document's
 * `issuer` must equal the configured one exactly (§4.3: no normalisation, not even of a
 * trailing slash), else its keys are never used.
 *
 * @throws KeyFetchError when the document cannot be read, names another issuer (level `error`),
 *   or has no http(s) `jwks_uri`.
 */
export async function discoverJwksUri(issuer: string, timeoutMs: number, observe: FetchObserver): Promise<string> {
  const document = await fetchJson(discoveryUrl(issuer), timeoutMs, observe);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new KeyFetchError('the discovery document is not a JSON object');
  }
  const { issuer: named, jwks_uri: jwksUri } = document as Record<string, unknown>;
  if (named !== issuer)
    throw new KeyFetchError('the discovery document names another issuer; its keys are not used', 'error');
  if (typeof jwksUri !== 'string' || !/^https?:\/\//i.test(jwksUri) || !URL.canParse(jwksUri)) {
    throw new KeyFetchError('the discovery document has no http(s) jwks_uri');
  }
  return jwksUri;
}
