import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseYaml } from '@authlayer/core';
import { createAuthMiddleware } from '@authlayer/express';
import {
  createCaptureLogger,
  startIntrospectionServer,
  startTestIdentityProvider,
  type IntrospectionServer,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import express from 'express';
import Fastify from 'fastify';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import authlayer from '../src/index.js';

// resource.audience_strict: a token whose aud also names another resource is refused with the
// contract's own sentence, in the body and the challenge, on both adapters, in jwt mode (with DPoP
// allowed, whose wrapper re-issues the challenge) and in oauth2 mode (whose refusal cache answers
// the second request), on every request, not only the first.

const IDENTIFIER = 'https://mcp.example.com/mcp';
const SENTENCE = 'the token is also for another audience';
const OTHER = 'https://other.example';

interface Served {
  readonly url: string;
  close(): Promise<void>;
}

async function serveExpress(config: unknown, env: Record<string, string>): Promise<Served> {
  const auth = await createAuthMiddleware(config as object, { env, logger: createCaptureLogger() });
  const app = express().get('/reports', auth, (_req, res) => void res.json({ ok: true }));
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/reports`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await auth.close();
    },
  };
}

async function serveFastify(config: unknown, env: Record<string, string>): Promise<Served> {
  const app = Fastify();
  await app.register(authlayer, { config: config as object, env, logger: createCaptureLogger() });
  app.get('/reports', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/reports`, close: () => app.close() };
}

const resource = `
resource:
  identifier: ${IDENTIFIER}
  audience_strict: true
access:
  default: authenticated
`;

let idp: TestIdentityProvider;
let introspection: IntrospectionServer;
const served = new Map<string, Served>();

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  introspection = await startIntrospectionServer();
  const jwt = parseYaml(`
auth:
  mode: jwt
  jwt: { jwks_url: ${idp.jwksUrl}, issuer: ${idp.issuer}, algorithms: [RS256], dpop: allowed }
${resource}`);
  const oauth2 = parseYaml(`
auth:
  mode: oauth2
  oauth2: { introspection_url: ${introspection.url}, client_id: ${introspection.clientId}, issuer: ${introspection.issuer} }
${resource}`);
  const env = { OAUTH2_CLIENT_SECRET: introspection.clientSecret };
  for (const [mode, config] of [
    ['jwt', jwt],
    ['oauth2', oauth2],
  ] as const) {
    served.set(`express ${mode}`, await serveExpress(config, env));
    served.set(`fastify ${mode}`, await serveFastify(config, env));
  }
});

afterAll(async () => {
  for (const each of served.values()) await each.close();
  await idp.close();
  await introspection.close();
});

const tokenFor = async (mode: string, aud: unknown): Promise<string> =>
  mode === 'jwt' ? idp.signToken({ sub: 'user-1', aud }) : introspection.issueToken({ sub: 'user-1', aud });

describe.each(['express jwt', 'fastify jwt', 'express oauth2', 'fastify oauth2'])('audience_strict, %s', (name) => {
  it('refuses a token also for another audience with the contract sentence, every time', async () => {
    const token = await tokenFor(name.split(' ')[1]!, [IDENTIFIER, OTHER]);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await fetch(served.get(name)!.url, { headers: { authorization: `Bearer ${token}` } });
      expect([res.status, await res.json()]).toEqual([401, { error: 'unauthorized', message: SENTENCE }]);
      expect(res.headers.get('www-authenticate')).toContain(`error="invalid_token", error_description="${SENTENCE}"`);
    }
  });

  it('accepts a token for this resource only, named as a URI', async () => {
    const token = await tokenFor(name.split(' ')[1]!, [`${IDENTIFIER}/`]);
    expect((await fetch(served.get(name)!.url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  });
});
