/** What a client sends to get an access token with the client credentials grant. */
export interface ClientCredentialsRequest {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
  /** RFC 8707 resource indicator: the API the token is for. */
  readonly resource: string;
  /** A DPoP proof for the token endpoint (RFC 9449 §5): the token is bound to its key (`token_type` DPoP). */
  readonly dpopProof?: string;
  /** A PEM client certificate, sent in {@link TEST_CERTIFICATE_HEADER} (the test provider's stand-in for mTLS). */
  readonly certificate?: string;
}

/**
 * Where the test providers read a client's certificate (URL-encoded PEM), in place of a TLS
 * connection to the token endpoint: their `mTLS` feature binds the token to it (RFC 8705 §3).
 */
export const TEST_CERTIFICATE_HEADER = 'x-test-client-certificate';

/**
 * Obtains an access token over real HTTP (client credentials, `client_secret_post`).
 *
 * @throws Error `the provider gave no token (HTTP <status>)` when the answer is not a Bearer token
 *   (a DPoP token when `dpopProof` is given).
 */
export async function obtainClientCredentialsToken(request: ClientCredentialsRequest): Promise<string> {
  const response = await fetch(request.tokenEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(request.dpopProof === undefined ? {} : { dpop: request.dpopProof }),
      ...(request.certificate === undefined
        ? {}
        : { [TEST_CERTIFICATE_HEADER]: encodeURIComponent(request.certificate) }),
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: request.scope,
      resource: request.resource,
      client_id: request.clientId,
      client_secret: request.clientSecret,
    }),
  });
  const body = (await response.json()) as {
    access_token?: unknown;
    token_type?: unknown;
    error?: unknown;
    error_description?: unknown;
  };
  const tokenType = request.dpopProof === undefined ? 'Bearer' : 'DPoP';
  if (response.status !== 200 || typeof body.access_token !== 'string' || body.token_type !== tokenType) {
    throw new Error(
      `the provider gave no token (HTTP ${response.status}${typeof body.error === 'string' ? ` ${body.error}: ${String(body.error_description)}` : ''})`,
    );
  }
  return body.access_token;
}

/** The `mTLS` feature of the test providers: certificate-bound tokens, the certificate from {@link TEST_CERTIFICATE_HEADER}. */
export const TEST_MTLS_FEATURE = Object.freeze({
  enabled: true,
  certificateBoundAccessTokens: true,
  getCertificate: (ctx: { get(name: string): string }) => {
    const value = ctx.get(TEST_CERTIFICATE_HEADER);
    return value === '' ? undefined : decodeURIComponent(value);
  },
});

/** The client of the test providers whose tokens are bound to its certificate (it must send one). */
export const CERTIFICATE_BOUND_CLIENT = 'bound-job';
