import type { OAuth2Config } from '@authlayer/core';
import { FetchFailure, fetchJsonObject } from './fetch-json.js';

/** Resolves with the introspection endpoint's URL; rejects with FetchFailure. */
export type EndpointSource = () => Promise<string>;

/**
 * Where tokens are introspected: `introspection_url`, or with `discovery: true` the
 * `introspection_endpoint` of `<issuer>/.well-known/openid-configuration` (RFC 8414 §3, OpenID
 * Connect Discovery). The document is fetched on first use, not at start-up (an unreachable
 * provider does not stop the service), one fetch at a time; once read it is kept. Its `issuer`
 * must equal the configured one exactly, and `introspection_endpoint` must be an http(s) URL
 * without user info, else the document is not used and the next call asks again (the handler
 * adds a cool-down, see `withCooldown`).
 */
export function createEndpointSource(config: OAuth2Config): EndpointSource {
  if (config.introspectionUrl !== null) {
    const url = config.introspectionUrl;
    return () => Promise.resolve(url);
  }
  const issuer = config.issuer as string;
  const metadataUrl = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  let found: string | undefined;
  let pending: Promise<string> | undefined;
  const discover = async (): Promise<string> => {
    const document = await fetchJsonObject(metadataUrl, { headers: { accept: 'application/json' } }, config.timeoutMs);
    const endpoint = document.introspection_endpoint;
    if (document.issuer !== issuer) throw new FetchFailure('the metadata names another issuer');
    if (!isUsableUrl(endpoint)) throw new FetchFailure('the metadata has no usable introspection_endpoint');
    found = endpoint;
    return endpoint;
  };
  return () => {
    if (found !== undefined) return Promise.resolve(found);
    pending ??= discover().finally(() => (pending = undefined));
    return pending;
  };
}

function isUsableUrl(value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
}
