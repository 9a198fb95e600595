import type { JSONWebKeySet, JWK } from 'jose';
import { startLoopbackServer } from './loopback-server.js';

/**
 * How the server answers `GET /jwks`:
 * `ok` the current key set; `fail` 500; `hang` never answers; `garbage` 200 with text that is
 * not JSON; `not-a-key-set` 200 with JSON that is not a key set.
 */
export type JwksServerMode = 'ok' | 'fail' | 'hang' | 'garbage' | 'not-a-key-set';

/** A loopback JWKS endpoint that counts how often it is asked. */
export interface JwksServer {
  /** The key set's URL, `http://127.0.0.1:<port>/jwks`. */
  readonly url: string;
  /** Requests received so far (any path, any mode). */
  readonly hits: number;
  /** Changes how the next requests are answered. */
  setMode(mode: JwksServerMode): void;
  /** Replaces the served keys (a rotation). */
  setKeys(keys: readonly JWK[]): void;
  close(): Promise<void>;
}

/**
 * Starts a JWKS server on 127.0.0.1, port 0, serving `keys` (public JWKs, for example from
 * `createSigningKey(...).publicJwk`).
 *
 * @example
 * const jwks = await startJwksServer([key.publicJwk]);
 * // ... jwks_url: jwks.url ...
 * await jwks.close();
 */
export async function startJwksServer(keys: readonly JWK[]): Promise<JwksServer> {
  let current: JSONWebKeySet = keySet(keys);
  let mode: JwksServerMode = 'ok';
  let hits = 0;
  const server = await startLoopbackServer((request, response) => {
    hits += 1;
    request.resume();
    if (mode === 'hang') return;
    if (mode === 'fail') return void response.writeHead(500).end('internal error');
    const body = mode === 'garbage' ? '<html>not json' : JSON.stringify(mode === 'ok' ? current : { keys: 'nope' });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  return {
    url: `${server.origin}/jwks`,
    get hits() {
      return hits;
    },
    setMode: (next) => void (mode = next),
    setKeys: (next) => void (current = keySet(next)),
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
