import type { IncomingMessage, ServerResponse } from 'node:http';
import { CERTIFICATE_BOUND_CLIENT, obtainClientCredentialsToken, TEST_MTLS_FEATURE } from './client-credentials.js';
import { startLoopbackServer } from './loopback-server.js';
import { obtainBound, OIDC_RESOURCE, type TokenBinding } from './oidc-provider.js';

/**
 * How the provider answers at its introspection endpoint: `ok` as oidc-provider does; `fail`
 * 500; `hang` never; `garbage` 200 with text that is not JSON; `html` 200 with an HTML page.
 */
export type IntrospectionMode = 'ok' | 'fail' | 'hang' | 'garbage' | 'html';

/** A client the API uses to call the introspection endpoint. */
export interface IntrospectionClientCredentials {
  readonly id: string;
  readonly secret: string;
}

/** A real OpenID provider issuing opaque access tokens, with introspection and revocation. */
export interface OpaqueTokenProvider {
  readonly issuer: string;
  readonly introspectionEndpoint: string;
  /** An API client that authenticates with `client_secret_basic`, and one with `client_secret_post`. */
  readonly clients: {
    readonly basic: IntrospectionClientCredentials;
    readonly post: IntrospectionClientCredentials;
  };
  /** Introspection requests received so far (counted at the server, whatever the mode). */
  readonly introspections: number;
  /** An opaque access token for the resource (`scope: "invoke read"`, nested role `reporter`, tenant `acme`). */
  obtainToken(): Promise<string>;
  /** An opaque token bound to a DPoP key and/or a certificate (see `OidcProvider.obtainBoundToken`); introspection names it in `cnf`. */
  obtainBoundToken(binding: TokenBinding): Promise<string>;
  /** Revokes a token at the provider (RFC 7009), as the client that obtained it. */
  revoke(token: string): Promise<void>;
  /** Changes how the next introspection requests are answered. */
  setMode(mode: IntrospectionMode): void;
  /** Stops listening and ends open connections, at the end of a test. */
  close(): Promise<void>;
}

const SECRET = 'a-client-secret-that-is-long-enough-1234';
const ISSUING = 'reporting-job';
const API_BASIC = { id: 'invoke-api-basic', secret: `${SECRET}-basic` };
const API_POST = { id: 'invoke-api-post', secret: `${SECRET}-post` };

/**
 * Starts `oidc-provider` on 127.0.0.1 (port 0) issuing opaque access tokens (client
 * credentials, resource {@link OIDC_RESOURCE}), with its introspection (RFC 7662) and
 * revocation (RFC 7009) endpoints on, and discovery naming them.
 * oidc-provider warns once on console.warn that its in-memory adapter is for development only.
 */
export async function startOpaqueTokenProvider(): Promise<OpaqueTokenProvider> {
  const { default: Provider } = await import('oidc-provider');
  let callback: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  let mode: IntrospectionMode = 'ok';
  let introspections = 0;
  const server = await startLoopbackServer((request, response) => {
    if (!request.url?.startsWith('/token/introspection')) return void callback?.(request, response);
    introspections += 1;
    if (mode === 'ok') return void callback?.(request, response);
    answerBadly(mode, request, response);
  });
  const provider = new Provider(server.origin, {
    clients: [
      { client_id: ISSUING, client_secret: SECRET, token_endpoint_auth_method: 'client_secret_post' },
      {
        client_id: CERTIFICATE_BOUND_CLIENT,
        client_secret: SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        tls_client_certificate_bound_access_tokens: true,
      },
      { client_id: API_BASIC.id, client_secret: API_BASIC.secret, token_endpoint_auth_method: 'client_secret_basic' },
      { client_id: API_POST.id, client_secret: API_POST.secret, token_endpoint_auth_method: 'client_secret_post' },
    ].map((client) => ({ ...client, grant_types: ['client_credentials'], redirect_uris: [], response_types: [] })),
    ttl: { ClientCredentials: 300 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      dPoP: { enabled: true },
      mTLS: TEST_MTLS_FEATURE,
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => OIDC_RESOURCE,
        getResourceServerInfo: () => ({
          scope: 'invoke read',
          audience: OIDC_RESOURCE,
          accessTokenTTL: 300,
          accessTokenFormat: 'opaque',
        }),
      },
    },
    extraTokenClaims: () => ({
      email: 'jobs@acme.example',
      realm_access: { roles: ['reporter'] },
      org: { id: 'acme' },
    }),
  });
  callback = provider.callback();
  const discovery = (await (await fetch(`${server.origin}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string
  >;
  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return {
    issuer: discovery.issuer as string,
    introspectionEndpoint: discovery.introspection_endpoint as string,
    clients: { basic: API_BASIC, post: API_POST },
    get introspections() {
      return introspections;
    },
    obtainToken: () =>
      obtainClientCredentialsToken({
        tokenEndpoint: discovery.token_endpoint as string,
        clientId: ISSUING,
        clientSecret: SECRET,
        scope: 'invoke read',
        resource: OIDC_RESOURCE,
      }),
    async revoke(token) {
      const response = await fetch(
        discovery.revocation_endpoint as string,
        form({ token, client_id: ISSUING, client_secret: SECRET }),
      );
      if (response.status !== 200) throw new Error(`the provider did not revoke the token (HTTP ${response.status})`);
    },
    obtainBoundToken: (binding) => obtainBound(discovery.token_endpoint as string, binding),
    setMode: (next) => void (mode = next),
    close: () => server.close(),
  };
}

function answerBadly(mode: Exclude<IntrospectionMode, 'ok'>, request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  if (mode === 'hang') return;
  if (mode === 'fail') return void response.writeHead(500).end('internal error');
  const [type, body] =
    mode === 'html'
      ? ['text/html', '<!doctype html><title>Sign in</title><p>Sign in']
      : ['application/json', '{"active":tru'];
  response.writeHead(200, { 'content-type': type }).end(body);
}
