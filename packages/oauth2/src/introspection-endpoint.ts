import type { OAuth2Config } from './config/oauth2-section.js';
import { discoverEndpoint } from '@authlayer/core/internal';

/** Resolves with the introspection endpoint's URL; rejects with FetchFailure. */
export type EndpointSource = () => Promise<string>;

/**
 * Where tokens are introspected: `introspection_url`, or with `discovery: true` the
 * `introspection_endpoint` of `<issuer>/.well-known/openid-configuration` (RFC 8414 §3, OpenID
 * Connect Discovery). The document is fetched on first use, not at start-up (an unreachable
 * provider does not stop the service), one fetch at a time; once read it is kept. The document
 * is read and checked by core's `discoverEndpoint` (the same as JWT mode's); one that cannot be
 * used is not kept, and the next call asks again (the handler adds a cool-down, see `withCooldown`).
 */
export function createEndpointSource(config: OAuth2Config): EndpointSource {
  if (config.introspectionUrl !== null) {
    const url = config.introspectionUrl;
    return () => Promise.resolve(url);
  }
  const issuer = config.issuer as string;
  let found: string | undefined;
  let pending: Promise<string> | undefined;
  const discover = async (): Promise<string> => {
    found = await discoverEndpoint(issuer, 'introspection_endpoint', { timeoutMs: config.timeoutMs });
    return found;
  };
  return () => {
    if (found !== undefined) return Promise.resolve(found);
    pending ??= discover().finally(() => (pending = undefined));
    return pending;
  };
}
