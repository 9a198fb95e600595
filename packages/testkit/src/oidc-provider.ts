import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { CERTIFICATE_BOUND_CLIENT, obtainClientCredentialsToken, TEST_MTLS_FEATURE } from './client-credentials.js';
import type { DpopKey } from './dpop-key.js';
import { startLoopbackServer } from './loopback-server.js';

/** The resource (RFC 8707) the provider issues access tokens for by default; it becomes their `aud`. */
export const OIDC_RESOURCE = 'urn:authlayer:api';
const CLIENT = { client_id: 'reporting-job', client_secret: 'a-client-secret-that-is-long-enough-1234' };
const SECRET = CLIENT.client_secret;

/** A further client of the provider: the scope it asks for and the claims its tokens carry. */
export interface OidcClient {
  readonly id: string;
  /** Space-separated scopes its tokens carry (every one is allowed by the resource). */
  readonly scope: string;
  /** Extra claims of its access tokens, in place of the default client's nested roles and tenant. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** A real OpenID provider on loopback, and how to get a token from it. */
export interface OidcProvider {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly tokenEndpoint: string;
  readonly clientId: string;
  /** The secret of every client of the provider (the default one and `extraClients`), for a client of your own. */
  readonly clientSecret: string;
  /** The path of each request it received, in order (its own token requests included). */
  readonly paths: readonly string[];
  /**
   * An RFC 9068 JWT access token, over real HTTP: client credentials with a resource indicator.
   * Without `clientId`, the default client's (`scope: "invoke read"`, nested role `reporter`).
   */
  obtainToken(clientId?: string): Promise<string>;
  /**
   * A sender-constrained JWT access token of the default client's scopes and claims: bound to
   * `dpop`'s key (`cnf.jkt`, RFC 9449) when given, to `certificate` (`cnf["x5t#S256"]`, RFC 8705;
   * a PEM certificate) when given; oidc-provider refuses to bind one token to both.
   */
  obtainBoundToken(binding: TokenBinding): Promise<string>;
  /** Stops listening and ends open connections, at the end of a test. */
  close(): Promise<void>;
}

/** What a sender-constrained token is bound to (see `obtainBoundToken`). */
export interface TokenBinding {
  readonly dpop?: DpopKey;
  readonly certificate?: string;
}

/**
 * Starts `oidc-provider` on 127.0.0.1 (port 0) with its own freshly generated signing key. Its
 * access tokens carry Keycloak-style nested roles (`realm_access.roles: [reporter]`) and a tenant
 * (`org.id: acme`), scopes `invoke read` (of those asked for, the ones it knows), and as `aud` the
 * resource the token request names (RFC 8707; {@link OIDC_RESOURCE} when it names none).
 * oidc-provider warns once on console.warn that its in-memory adapter is for development only.
 * `extraClients` adds clients whose tokens carry their own scope and claims (`obtainToken(id)`).
 */
export async function startOidcProvider(
  alg: 'RS256' | 'ES256',
  kid: string,
  ...extraClients: readonly OidcClient[]
): Promise<OidcProvider> {
  // Imported here, not at the top: testkit's other helpers must not pay for (or hear) oidc-provider.
  const { default: Provider } = await import('oidc-provider');
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' };
  let callback: ReturnType<InstanceType<typeof Provider>['callback']> | undefined;
  const paths: string[] = [];
  const server = await startLoopbackServer((request, response) => {
    paths.push(String(request.url));
    callback?.(request, response);
  });
  const provider = new Provider(server.origin, {
    jwks: { keys: [signingJwk] },
    clientDefaults: { id_token_signed_response_alg: alg },
    ttl: { ClientCredentials: 300 },
    clients: [
      CLIENT,
      { client_id: CERTIFICATE_BOUND_CLIENT, client_secret: SECRET, tls_client_certificate_bound_access_tokens: true },
      ...extraClients.map((client) => ({ client_id: client.id, client_secret: SECRET })),
    ].map((client) => ({
      ...client,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
    })),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // DPoP-bound tokens when the token request carries a proof; certificate-bound ones for bound-job.
      dPoP: { enabled: true },
      mTLS: TEST_MTLS_FEATURE,
      resourceIndicators: {
        enabled: true,
        defaultResource: () => OIDC_RESOURCE,
        getResourceServerInfo: (_ctx: unknown, resourceIndicator: string) => ({
          scope: [...new Set(['invoke', 'read', ...extraClients.flatMap((client) => client.scope.split(' '))])]
            .filter(Boolean)
            .join(' '),
          audience: resourceIndicator,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg } },
        }),
      },
    },
    extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) =>
      extraClients.find((client) => client.id === token.clientId)?.claims ?? {
        realm_access: { roles: ['reporter'] },
        org: { id: 'acme' },
      },
  });
  callback = provider.callback();
  const discovery = (await (await fetch(`${server.origin}/.well-known/openid-configuration`)).json()) as Record<
    string,
    string
  >;
  const tokenEndpoint = discovery.token_endpoint as string;
  return {
    issuer: discovery.issuer as string,
    jwksUri: discovery.jwks_uri as string,
    tokenEndpoint,
    clientId: CLIENT.client_id,
    clientSecret: SECRET,
    paths,
    obtainToken(clientId = CLIENT.client_id) {
      const scope = extraClients.find((client) => client.id === clientId)?.scope ?? 'invoke read';
      return obtainClientCredentialsToken({
        tokenEndpoint,
        clientId,
        clientSecret: SECRET,
        scope,
        resource: OIDC_RESOURCE,
      });
    },
    obtainBoundToken: (binding) => obtainBound(tokenEndpoint, binding),
    close: () => server.close(),
  };
}

/** A token of the default client's scope and claims, bound as `binding` says. */
export async function obtainBound(tokenEndpoint: string, { dpop, certificate }: TokenBinding): Promise<string> {
  return obtainClientCredentialsToken({
    tokenEndpoint,
    clientId: certificate === undefined ? CLIENT.client_id : CERTIFICATE_BOUND_CLIENT,
    clientSecret: SECRET,
    scope: 'invoke read',
    resource: OIDC_RESOURCE,
    ...(dpop === undefined ? {} : { dpopProof: await dpop.proof({ method: 'POST', url: tokenEndpoint }) }),
    ...(certificate === undefined ? {} : { certificate }),
  });
}
