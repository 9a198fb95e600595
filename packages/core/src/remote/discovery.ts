import { fetchJsonObject, FetchFailure, type FetchJsonOptions } from './fetch-json.js';

/** The largest discovery document read; real ones are a few KiB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024;

/** The URL of the OpenID configuration of `issuer` (OpenID Connect Discovery 1.0 §4). */
export function discoveryUrl(issuer: string): string {
  // §4.1: a terminating `/` of the issuer is removed before the well-known path is appended.
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/**
 * Reads `<issuer>/.well-known/openid-configuration` (at most {@link MAX_DOCUMENT_BYTES}) and
 * returns the URL in its `field` (`jwks_uri`, `introspection_endpoint`). The document's `issuer`
 * must equal the configured one exactly (§4.3: no normalisation, not even of a trailing slash),
 * and the URL must be http(s) without user info, else the document is not used.
 *
 * @throws FetchFailure: what {@link fetchJsonObject} throws; `the discovery document names
 *   another issuer` (level `error`: a misconfiguration); `the discovery document has no usable
 *   <field>`
 */
export async function discoverEndpoint(
  issuer: string,
  field: string,
  options: Pick<FetchJsonOptions, 'timeoutMs' | 'observe'>,
): Promise<string> {
  const document = await fetchJsonObject(discoveryUrl(issuer), {
    ...options,
    maxBytes: MAX_DOCUMENT_BYTES,
    init: { headers: { accept: 'application/json' } },
  });
  if (document.issuer !== issuer) throw new FetchFailure('the discovery document names another issuer', 'error');
  const url = document[field];
  if (!isUsableUrl(url)) throw new FetchFailure(`the discovery document has no usable ${field}`);
  return url;
}

/** An http(s) URL without user info (credentials travel only in headers the caller sets). */
function isUsableUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
}
