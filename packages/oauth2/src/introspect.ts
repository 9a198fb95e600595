import type { OAuth2AuthMethod } from '@authlayer/core';
import { fetchJsonObject, inSpan } from '@authlayer/core/internal';
import { MAX_ANSWER_BYTES } from './answer-limit.js';

/** How this API authenticates to the introspection endpoint. */
export interface IntrospectionClient {
  readonly clientId: string;
  /** The secret's value; never logged, never in an error. */
  readonly clientSecret: string;
  readonly authMethod: OAuth2AuthMethod;
  readonly timeoutMs: number;
}

/** Asks the endpoint about one token; resolves with the answer's JSON object. */
export type Introspect = (endpoint: string, token: string) => Promise<Record<string, unknown>>;

/**
 * Builds the RFC 7662 §2.1 request: `POST` of `token` and `token_type_hint=access_token` as a
 * form, the client authenticated with `client_secret_basic` (RFC 6749 §2.3.1: id and secret
 * form-encoded, then Basic) or `client_secret_post` (both in the form).
 *
 * @throws FetchFailure when the endpoint is down, slow past `timeoutMs`, or does not answer a
 *   200 with a JSON object of at most `MAX_ANSWER_BYTES`.
 */
export function createIntrospect(client: IntrospectionClient): Introspect {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
  };
  const credentials: Record<string, string> = {};
  if (client.authMethod === 'client_secret_basic') {
    const pair = `${formEncode(client.clientId)}:${formEncode(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    credentials.client_id = client.clientId;
    credentials.client_secret = client.clientSecret;
  }
  return (endpoint, token) => {
    const body = new URLSearchParams({ token, token_type_hint: 'access_token', ...credentials }).toString();
    // A child span of the decision; never the token, the endpoint's query or the client secret.
    return inSpan('authlayer.introspect', { 'authlayer.client_id': client.clientId }, () =>
      fetchJsonObject(endpoint, {
        timeoutMs: client.timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
        init: { method: 'POST', headers, body },
      }),
    );
  };
}

/** application/x-www-form-urlencoded, as RFC 6749 §2.3.1 asks before Basic encoding. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
