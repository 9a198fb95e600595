import { canonicalTargetProblem } from '@authlayer/engine/internal';
import type { IncomingHttpHeaders } from 'node:http';

/** Which headers describe the original request: nginx `auth_request`'s or Traefik ForwardAuth's. */
export type ForwardAuthProxy = 'nginx' | 'traefik';

/** The request a proxy asks about: its method and URI (origin-form: path and query). */
export interface OriginalRequest {
  readonly method: string;
  readonly uri: string;
}

const STYLES = {
  nginx: { method: 'x-original-method', uri: 'x-original-uri', uriName: 'X-Original-URI' },
  traefik: { method: 'x-forwarded-method', uri: 'x-forwarded-uri', uriName: 'X-Forwarded-Uri' },
} as const;

const METHOD = /^[A-Za-z]{1,20}$/;
const MAX_URI = 8192;

/**
 * The original request from exactly one header style: `proxy`'s when set (the other style is
 * ignored), else whichever style is present, and a refusal when both are, since a client can add
 * the style its proxy does not set and the proxy passes it on. Then the URI in canonical form only
 * (the engine's `canonicalTargetProblem`, which `auth.upgrade` applies too): the path the table
 * judges must be the path the proxy and the upstream resolve to. Returns the request, or why it is
 * refused (a 400).
 */
export function readOriginalRequest(
  headers: IncomingHttpHeaders,
  ownMethod: string,
  proxy: ForwardAuthProxy | null,
): OriginalRequest | string {
  const present = (style: ForwardAuthProxy) =>
    headers[STYLES[style].method] !== undefined || headers[STYLES[style].uri] !== undefined;
  let style = proxy;
  if (style === null) {
    if (present('nginx') && present('traefik')) {
      return 'the request carries both X-Original-* and X-Forwarded-* headers; set forward_auth.proxy';
    }
    style = present('traefik') ? 'traefik' : 'nginx';
  }
  const { method: methodHeader, uri: uriHeader, uriName } = STYLES[style];
  const uri = single(headers[uriHeader]);
  if (uri === undefined) {
    return proxy === null
      ? 'the proxy sent no original URI (X-Forwarded-Uri or X-Original-URI)'
      : `the proxy sent no original URI (${uriName})`;
  }
  if (uri.length > MAX_URI) return 'the original URI is too long';
  const problem = canonicalTargetProblem(uri);
  if (problem !== null) return `the original URI is not in canonical form: ${problem}`;
  // nginx's subrequest keeps the original method when the block sets no method header.
  const method = methodHeader in headers ? single(headers[methodHeader]) : ownMethod;
  if (method === undefined || !METHOD.test(method)) return 'the original method is not a method';
  return { method: method.toUpperCase(), uri };
}

function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
