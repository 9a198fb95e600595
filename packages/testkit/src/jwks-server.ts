import type { JSONWebKeySet, JWK } from 'jose';
import { startLoopbackServer } from './loopback-server.js';

/**
 * How the server answers `GET /jwks`:
 * `ok` the current key set; `fail` 500; `hang` never answers; `garbage` 200 with text that is
 * not JSON; `not-a-key-set` 200 with JSON that is not a key set.
 */
export type JwksServerMode = 'ok' | 'fail' | 'hang' | 'garbage' | 'not-a-key-set';

/** Options of {@link startJwksServer}. */
export interface JwksServerOptions {
  /**
   * The `issuer` its discovery document names (`GET /.well-known/openid-configuration`).
   * Default: the server's own origin, as a real provider's; set another to impersonate.
   */
  readonly discoveryIssuer?: string;
}

/** A loopback JWKS endpoint (with an OpenID discovery document) that counts how often it is asked. */
export interface JwksServer {
  /** The key set's URL, `http://127.0.0.1:<port>/jwks`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: the issuer whose discovery document names {@link url}. */
  readonly issuer: string;
  /** Requests received so far (any path, any mode). */
  readonly hits: number;
  /** The path of each request received, in order. */
  readonly paths: readonly string[];
  /** Changes how the next requests are answered. */
  setMode(mode: JwksServerMode): void;
  /** Replaces the served keys (a rotation). */
  setKeys(keys: readonly JWK[]): void;
  /** Answers every later request `ms` milliseconds late (a slow provider). Default 0. */
  setDelay(ms: number): void;
  /** Stops listening: connections are refused until {@link start}. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /** Stops listening and ends open connections, at the end of a test. */
  close(): Promise<void>;
}

const DISCOVERY = '/.well-known/openid-configuration';

/**
 * Starts a JWKS server on 127.0.0.1, port 0, serving `keys` (public JWKs, for example from
 * `createSigningKey(...).publicJwk`) at `/jwks`, and an OpenID discovery document naming it.
 *
 * @example
 * const jwks = await startJwksServer([key.publicJwk]);
 * // ... jwks_url: jwks.url ... or: issuer: jwks.issuer, discovery: true
 * await jwks.close();
 */
export async function startJwksServer(keys: readonly JWK[], options: JwksServerOptions = {}): Promise<JwksServer> {
  let current: JSONWebKeySet = keySet(keys);
  let mode: JwksServerMode = 'ok';
  let delayMs = 0;
  const paths: string[] = [];
  let origin = '';
  const server = await startLoopbackServer((request, response) => {
    paths.push(String(request.url));
    request.resume();
    if (mode === 'hang') return;
    if (mode === 'fail') return void response.writeHead(500).end('internal error');
    const document = { issuer: options.discoveryIssuer ?? origin, jwks_uri: `${origin}/jwks` };
    const json = request.url === DISCOVERY ? document : mode === 'ok' ? current : { keys: 'nope' };
    const body = mode === 'garbage' ? '<html>not json' : JSON.stringify(json);
    const answer = () => void response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (delayMs === 0) answer();
    else setTimeout(answer, delayMs);
  });
  origin = server.origin;
  return {
    url: `${origin}/jwks`,
    issuer: origin,
    get hits() {
      return paths.length;
    },
    paths,
    setMode: (next) => void (mode = next),
    setKeys: (next) => void (current = keySet(next)),
    setDelay: (ms) => void (delayMs = ms),
    stop: () => server.close(),
    start: () => server.reopen(),
    close: () => server.close(),
  };
}

/** Every JWK type member is optional, so a `SigningKey` passes for one: refuse it here. */
function keySet(keys: readonly JWK[]): JSONWebKeySet {
  for (const key of keys) {
    if (typeof key.kty !== 'string') throw new TypeError('startJwksServer: pass JWKs (key.publicJwk), not SigningKeys');
  }
  return { keys: [...keys] };
}
