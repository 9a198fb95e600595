import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createDpopKey,
  OIDC_RESOURCE,
  signDpopProof,
  startOidcProvider,
  type DpopKey,
  type OidcProvider,
} from '@authlayer/testkit';
import express from 'express';
import { createAuthMiddleware, openApiSecurity } from '../src/index.js';
import { listen } from './support/listen.js';

// RFC 9449 against the real oidc-provider: it issues DPoP-bound JWT access tokens (cnf.jkt) to a
// client that proves its key at the token endpoint; the client then calls the API with
// `Authorization: DPoP` and a fresh proof per request, and every wrong proof is its own 401.
const LEEWAY = 30;
const DESCRIPTION = 'the DPoP proof or the token binding is not valid';
const PROOF_REFUSED = `DPoP realm="authlayer", algs="ES256 RS256", error="invalid_dpop_proof", error_description="${DESCRIPTION}", Bearer realm="authlayer"`;
const TOKEN_REFUSED = `DPoP realm="authlayer", algs="ES256 RS256", error="invalid_token", error_description="${DESCRIPTION}", Bearer realm="authlayer"`;

let provider: OidcProvider;
let client: DpopKey;
let token: string;
const servers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  provider = await startOidcProvider('ES256', 'dpop-k1');
  client = await createDpopKey('ES256');
  token = await provider.obtainBoundToken({ dpop: client });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await provider.close();
});

async function start(dpop: 'allowed' | 'required') {
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'jwt',
        jwt: {
          issuer: provider.issuer,
          jwks_url: provider.jwksUri,
          audience: OIDC_RESOURCE,
          algorithms: ['ES256'],
          leeway_seconds: LEEWAY,
          dpop,
          dpop_algorithms: ['ES256', 'RS256'],
        },
      },
    },
    { logger },
  );
  const app = express();
  app.get('/invoke', auth, (req, res) => res.json(req.auth));
  const server = await listen(app);
  servers.push(server);
  return { url: `${server.origin}/invoke`, logger };
}

const call = (url: string, authorization: string, proof?: string) =>
  fetch(url, { headers: { authorization, ...(proof === undefined ? {} : { dpop: proof }) } });

async function expectRefused(response: Response, challenge: string) {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(challenge);
  const body = await response.text();
  expect(JSON.parse(body)).toEqual({ error: 'unauthorized', message: DESCRIPTION });
  expect(body).not.toContain(token);
}

describe('DPoP (RFC 9449) in jwt mode, with tokens of the real oidc-provider', () => {
  let url: string;
  beforeAll(async () => {
    ({ url } = await start('allowed'));
  });

  it('the token is DPoP-bound: its cnf.jkt is the thumbprint of the client key', () => {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as {
      cnf?: { jkt?: string };
    };
    expect(payload.cnf?.jkt).toBe(client.jkt);
  });

  it('accepts the token with a proof of the request, again with a new proof (cached token), and GET /invoke?x=1', async () => {
    for (const target of [url, url, `${url}?x=1`]) {
      const response = await call(target, `DPoP ${token}`, await client.proof({ method: 'GET', url: target, token }));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ method: 'jwt', userId: provider.clientId });
    }
  });

  const wrong: [string, () => Promise<string>, string?][] = [
    ['htm (POST for a GET)', () => client.proof({ method: 'POST', url, token })],
    ['htu (another path)', () => client.proof({ method: 'GET', url: `${url}/other`, token })],
    ['htu (another port)', () => client.proof({ method: 'GET', url: url.replace(/:(\d+)\//, ':1/'), token })],
    ['ath (the hash of another token)', () => client.proof({ method: 'GET', url, token: `${token}x` })],
    ['ath (absent)', () => client.proof({ method: 'GET', url })],
    ['typ (JWT)', () => client.proof({ method: 'GET', url, token, header: { typ: 'JWT' } })],
    ['iat 60 s past the window', () => client.proof({ method: 'GET', url, token, iat: now() - LEEWAY - 60 })],
    ['iat 60 s ahead of the window', () => client.proof({ method: 'GET', url, token, iat: now() + LEEWAY + 60 })],
    ['jti absent', () => client.proof({ method: 'GET', url, token, claims: { jti: undefined } })],
    [
      'alg ES384 (not in dpop_algorithms)',
      () => keyOf('ES384').then((key) => key.proof({ method: 'GET', url, token })),
    ],
    ['alg HS256 (symmetric)', () => symmetricProof()],
    ['alg none', () => unsignedProof()],
    ['a private key in jwk', () => client.proof({ method: 'GET', url, token, header: { jwk: client.privateJwk } })],
    [
      'a jwk that did not sign it',
      () =>
        keyOf('ES256').then(async (other) =>
          client.proof({ method: 'GET', url, token, header: { jwk: other.publicJwk } }),
        ),
    ],
    ['a proof that is no JWS', async () => 'not-a-proof'],
    // The proof is sound, but of another key than the token is bound to: the token is at fault.
    [
      'key (another client key)',
      () => keyOf('ES256').then((key) => key.proof({ method: 'GET', url, token })),
      TOKEN_REFUSED,
    ],
  ];
  it.each(wrong)('refuses a proof with a wrong %s', async (_name, make, challenge = PROOF_REFUSED) => {
    await expectRefused(await call(url, `DPoP ${token}`, await make()), challenge);
  });

  it('refuses a replayed proof (the same jti), and two DPoP headers', async () => {
    const proof = await client.proof({ method: 'GET', url, token });
    expect((await call(url, `DPoP ${token}`, proof)).status).toBe(200);
    await expectRefused(await call(url, `DPoP ${token}`, proof), PROOF_REFUSED);
    const headers = new Headers({ authorization: `DPoP ${token}` });
    headers.append('dpop', await client.proof({ method: 'GET', url, token }));
    headers.append('dpop', await client.proof({ method: 'GET', url, token }));
    await expectRefused(await fetch(url, { headers }), PROOF_REFUSED);
  });

  it('refuses a DPoP token without a proof', async () => {
    await expectRefused(await call(url, `DPoP ${token}`), PROOF_REFUSED);
  });

  it('refuses the DPoP-bound token sent as Bearer (a downgrade), with or without a proof', async () => {
    await expectRefused(await call(url, `Bearer ${token}`), TOKEN_REFUSED);
    await expectRefused(
      await call(url, `Bearer ${token}`, await client.proof({ method: 'GET', url, token })),
      TOKEN_REFUSED,
    );
  });

  it('takes an unbound token as Bearer (allowed), and refuses it under the DPoP scheme', async () => {
    const plain = await provider.obtainToken();
    expect((await call(url, `Bearer ${plain}`)).status).toBe(200);
    const proof = await client.proof({ method: 'GET', url, token: plain });
    await expectRefused(await call(url, `DPoP ${plain}`, proof), TOKEN_REFUSED);
  });

  it('offers both schemes to a request without credentials, and puts a token error in the DPoP challenge', async () => {
    const response = await fetch(url);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(
      'Bearer realm="authlayer", DPoP realm="authlayer", algs="ES256 RS256"',
    );
    const garbled = await call(
      url,
      `DPoP ${token.slice(0, -4)}AAAA`,
      await client.proof({ method: 'GET', url, token }),
    );
    expect(garbled.status).toBe(401);
    expect(garbled.headers.get('www-authenticate')).toBe(
      'DPoP realm="authlayer", algs="ES256 RS256", error="invalid_token", error_description="the token signature is invalid", Bearer realm="authlayer"',
    );
  });
});

describe('dpop: required', () => {
  it('accepts a DPoP token with its proof and refuses any Bearer token', async () => {
    const { url } = await start('required');
    expect((await call(url, `DPoP ${token}`, await client.proof({ method: 'GET', url, token }))).status).toBe(200);
    const plain = await provider.obtainToken();
    const challenge = `DPoP realm="authlayer", algs="ES256 RS256", error="invalid_token", error_description="${DESCRIPTION}"`;
    await expectRefused(await call(url, `Bearer ${plain}`), challenge);
    const none = await fetch(url);
    expect(none.headers.get('www-authenticate')).toBe('DPoP realm="authlayer", algs="ES256 RS256"');
  });
});

describe('what the config implies for RFC 9728 metadata and OpenAPI', () => {
  const jwt = (extra: object) => ({
    issuer: 'https://idp.example.com',
    jwks_url: 'https://idp.example.com/jwks',
    ...extra,
  });
  const metadataOf = async (auth: object) =>
    (
      await createAuthMiddleware(
        { auth, resource: { identifier: 'https://api.example.com' } },
        { env: { SERVICE_API_KEY: 'a-key-0123456789abcdef' }, logger: createCaptureLogger() },
      )
    ).resourceMetadata()?.document;

  it('jwt alone with dpop required and certificate_bound: every field, and DPoP alone in OpenAPI', async () => {
    const auth = await createAuthMiddleware(
      {
        auth: { mode: 'jwt', jwt: jwt({ dpop: 'required', dpop_algorithms: ['ES256'], certificate_bound: 'allowed' }) },
      },
      { logger: createCaptureLogger() },
    );
    expect(openApiSecurity(auth.handler)).toEqual({
      schemes: {
        DPoPAuth: {
          type: 'http',
          scheme: 'DPoP',
          description: "JWT access token, bound to the client's key by a DPoP proof (RFC 9449; algs ES256)",
        },
      },
      requirements: [{ DPoPAuth: [] }],
    });
    expect(
      await metadataOf({
        mode: 'jwt',
        jwt: jwt({ dpop: 'required', dpop_algorithms: ['ES256'], certificate_bound: 'allowed' }),
      }),
    ).toMatchObject({
      dpop_signing_alg_values_supported: ['ES256'],
      dpop_bound_access_tokens_required: true,
      tls_client_certificate_bound_access_tokens: true,
    });
  });

  it('[api_key, jwt]: DPoP is offered, not required (API keys are not bound); nothing without dpop', async () => {
    const document = await metadataOf({ mode: ['api_key', 'jwt'], jwt: jwt({ dpop: 'required' }) });
    expect(document).toMatchObject({
      dpop_signing_alg_values_supported: ['ES256', 'RS256', 'PS256', 'EdDSA', 'Ed25519'],
      dpop_bound_access_tokens_required: false,
    });
    expect(document).not.toHaveProperty('tls_client_certificate_bound_access_tokens');
    const plain = await metadataOf({ mode: ['api_key', 'jwt'], jwt: jwt({ certificate_bound: 'required' }) });
    expect(plain).not.toHaveProperty('dpop_signing_alg_values_supported');
    expect(plain).toMatchObject({ tls_client_certificate_bound_access_tokens: true });
  });
});

const now = () => Math.floor(Date.now() / 1000);
const keyOf = (alg: string) => createDpopKey(alg);

async function symmetricProof(): Promise<string> {
  const secret = new Uint8Array(32).fill(7);
  return signDpopProof(
    secret,
    'HS256',
    { kty: 'oct', k: Buffer.from(secret).toString('base64url') },
    {
      method: 'GET',
      url: 'http://127.0.0.1/invoke',
      token,
    },
  );
}

async function unsignedProof(): Promise<string> {
  const header = { typ: 'dpop+jwt', alg: 'none', jwk: client.publicJwk };
  const claims = { jti: 'x', htm: 'GET', htu: 'http://127.0.0.1/invoke', iat: now() };
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part(header)}.${part(claims)}.`;
}
