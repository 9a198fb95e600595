/** What a client sends to get an access token with the client credentials grant. */
export interface ClientCredentialsRequest {
  readonly tokenEndpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope: string;
  /** RFC 8707 resource indicator: the API the token is for. */
  readonly resource: string;
}

/**
 * Obtains an access token over real HTTP (client credentials, `client_secret_post`).
 *
 * @throws Error `the provider gave no token (HTTP <status>)` when the answer is not a Bearer token.
 */
export async function obtainClientCredentialsToken(request: ClientCredentialsRequest): Promise<string> {
  const response = await fetch(request.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: request.scope,
      resource: request.resource,
      client_id: request.clientId,
      client_secret: request.clientSecret,
    }),
  });
  const body = (await response.json()) as { access_token?: unknown; token_type?: unknown };
  if (response.status !== 200 || typeof body.access_token !== 'string' || body.token_type !== 'Bearer') {
    throw new Error(`the provider gave no token (HTTP ${response.status})`);
  }
  return body.access_token;
}
