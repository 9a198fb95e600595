import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLoopbackServer } from './loopback-server.js';
import type { IntrospectionMode } from './opaque-token-provider.js';

/** Options of {@link startIntrospectionServer}; every one has a default. */
export interface IntrospectionServerOptions {
  /** The issuer it names in answers and in its metadata. Default: its own origin. */
  readonly issuer?: string;
  /** Default `test-api`. */
  readonly clientId?: string;
  /** Default: 32 random bytes, base64url. */
  readonly clientSecret?: string;
  /** Its clock, in milliseconds, for `iat` and `exp`. Default `Date.now`. */
  readonly now?: () => number;
}

/** What {@link IntrospectionServer.issueToken} puts in the active answer. */
export interface OpaqueTokenOptions {
  /** Seconds until `exp`. Default 300. */
  readonly expiresIn?: number;
}

/** A loopback RFC 7662 introspection endpoint holding the opaque tokens a test issues. */
export interface IntrospectionServer {
  /** `http://127.0.0.1:<port>/introspect` */
  readonly url: string;
  /** The `issuer` it answers with; `<issuer>/.well-known/openid-configuration` names `url`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Introspection requests received so far, whatever the mode. */
  readonly requests: number;
  /** A new random opaque token whose answer is `{ active: true, iss, client_id, iat, exp, ...claims }`. */
  issueToken(claims?: Readonly<Record<string, unknown>>, options?: OpaqueTokenOptions): string;
  /** From now on the token's answer is `{ active: false }`. */
  revoke(token: string): void;
  /** Changes how the next introspection requests are answered. */
  setMode(mode: IntrospectionMode): void;
  /** Stops listening and ends open connections, at the end of a test. */
  close(): Promise<void>;
}

/**
 * Starts an introspection endpoint on 127.0.0.1, port 0. It authenticates its client with
 * `client_secret_basic` or `client_secret_post` (else 401 `invalid_client`), answers
 * `{ active: false }` for any token it did not issue, was revoked or is past `exp`, and serves
 * discovery metadata naming itself (for `discovery: true`).
 *
 * @example
 * const introspection = await startIntrospectionServer();
 * const token = introspection.issueToken({ sub: 'user-1', scope: 'invoke' });
 */
export async function startIntrospectionServer(options: IntrospectionServerOptions = {}): Promise<IntrospectionServer> {
  const now = options.now ?? Date.now;
  const clientId = options.clientId ?? 'test-api';
  const clientSecret = options.clientSecret ?? randomBytes(32).toString('base64url');
  const tokens = new Map<string, Record<string, unknown>>();
  let mode: IntrospectionMode = 'ok';
  let requests = 0;
  let issuer = options.issuer;
  const server = await startLoopbackServer((request, response) => {
    if (request.url === '/.well-known/openid-configuration') {
      return void json(response, 200, { issuer, introspection_endpoint: `${origin}/introspect` });
    }
    requests += 1;
    readForm(request).then(
      (form) => answer(form, request, response),
      () => response.destroy(),
    );
  });
  const origin = server.origin;
  issuer ??= origin;

  function answer(form: URLSearchParams, request: IncomingMessage, response: ServerResponse): void {
    if (mode === 'hang') return;
    if (mode === 'fail') return void response.writeHead(500).end('internal error');
    if (mode === 'garbage') return void json(response, 200, undefined, '{"active":tru');
    if (mode === 'html')
      return void response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Sign in');
    if (!authenticated(form, request.headers.authorization))
      return void json(response, 401, { error: 'invalid_client' });
    const claims = tokens.get(form.get('token') ?? '');
    const active = claims !== undefined && (claims.exp as number) * 1000 > now();
    json(response, 200, active ? { active: true, ...claims } : { active: false });
  }

  function authenticated(form: URLSearchParams, authorization: string | undefined): boolean {
    if (authorization?.startsWith('Basic ')) {
      const [id = '', secret = ''] = Buffer.from(authorization.slice(6), 'base64')
        .toString()
        .split(':')
        .map(decodeForm);
      return id === clientId && same(secret, clientSecret);
    }
    return form.get('client_id') === clientId && same(form.get('client_secret') ?? '', clientSecret);
  }

  return {
    url: `${origin}/introspect`,
    issuer,
    clientId,
    clientSecret,
    get requests() {
      return requests;
    },
    issueToken(claims = {}, { expiresIn = 300 } = {}) {
      const token = randomBytes(24).toString('base64url');
      const iat = Math.floor(now() / 1000);
      tokens.set(token, { iss: issuer, client_id: clientId, iat, exp: iat + expiresIn, ...claims });
      return token;
    },
    revoke: (token) => void tokens.delete(token),
    setMode: (next) => void (mode = next),
    close: () => server.close(),
  };
}

function json(response: ServerResponse, status: number, body: unknown, text = JSON.stringify(body)): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => resolve(new URLSearchParams(body)));
  });
}

/** RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding. */
function decodeForm(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return '';
  }
}

function same(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
