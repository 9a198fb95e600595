import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createCaptureLogger,
  createDpopKey,
  startOpaqueTokenProvider,
  type DpopKey,
  type OpaqueTokenProvider,
} from '@authlayer/testkit';
import express from 'express';
import { createAuthMiddleware } from '../src/index.js';
import { listen } from './support/listen.js';

// RFC 9449 with token introspection: the real oidc-provider issues an opaque DPoP-bound token, its
// introspection answer names cnf.jkt, and the API takes it only with a proof of the request.
const DESCRIPTION = 'the DPoP proof or the token binding is not valid';

let provider: OpaqueTokenProvider;
let client: DpopKey;
let url: string;
let close: () => Promise<void>;

beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  provider = await startOpaqueTokenProvider();
  warn.mockRestore();
  client = await createDpopKey();
  const auth = await createAuthMiddleware(
    {
      auth: {
        mode: 'oauth2',
        oauth2: {
          introspection_url: provider.introspectionEndpoint,
          client_id: provider.clients.basic.id,
          dpop: 'allowed',
          dpop_algorithms: ['ES256'],
        },
      },
    },
    { env: { OAUTH2_CLIENT_SECRET: provider.clients.basic.secret }, logger: createCaptureLogger() },
  );
  const app = express();
  app.get('/invoke', auth, (req, res) => res.json(req.auth));
  const server = await listen(app);
  url = `${server.origin}/invoke`;
  close = server.close;
});
afterAll(async () => {
  await close();
  await provider.close();
});

const call = (authorization: string, proof?: string) =>
  fetch(url, { headers: { authorization, ...(proof === undefined ? {} : { dpop: proof }) } });

describe('DPoP in oauth2 mode, with opaque tokens of the real oidc-provider', () => {
  it('accepts the token with its proof, again from the cached answer with a new proof; refuses a replay', async () => {
    const token = await provider.obtainBoundToken({ dpop: client });
    const before = provider.introspections;
    const first = await client.proof({ method: 'GET', url, token });
    expect((await call(`DPoP ${token}`, first)).status).toBe(200);
    const second = await call(`DPoP ${token}`, await client.proof({ method: 'GET', url, token }));
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ method: 'oauth2' });
    expect(provider.introspections).toBe(before + 1);
    const replayed = await call(`DPoP ${token}`, first);
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('www-authenticate')).toBe(
      `DPoP realm="authlayer", algs="ES256", error="invalid_dpop_proof", error_description="${DESCRIPTION}", Bearer realm="authlayer"`,
    );
  });

  it('refuses a proof of another key, a wrong ath, and the bound token sent as Bearer', async () => {
    const token = await provider.obtainBoundToken({ dpop: client });
    const other = await createDpopKey();
    for (const [authorization, proof, error] of [
      [`DPoP ${token}`, await other.proof({ method: 'GET', url, token }), 'invalid_token'],
      [`DPoP ${token}`, await client.proof({ method: 'GET', url, token: 'another' }), 'invalid_dpop_proof'],
      [`Bearer ${token}`, undefined, 'invalid_token'],
    ] as const) {
      const response = await call(authorization, proof);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        `DPoP realm="authlayer", algs="ES256", error="${error}", error_description="${DESCRIPTION}", Bearer realm="authlayer"`,
      );
      expect(await response.text()).not.toContain(token);
    }
  });

  it('still takes an unbound opaque token as Bearer (allowed)', async () => {
    expect((await call(`Bearer ${await provider.obtainToken()}`)).status).toBe(200);
  });
});
