import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createCaptureLogger,
  expectedContext,
  startOpaqueTokenProvider,
  type OpaqueTokenProvider,
} from '@authlayer/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.js';

// The reference service in OAuth2 mode, asking a real provider (oidc-provider, opaque tokens).
const logger = createCaptureLogger();
let provider: OpaqueTokenProvider;
let app: Express;
const secrets: string[] = [];
const answers: string[] = [];

const invalid = (description: string) =>
  `Bearer realm="authlayer", error="invalid_token", error_description="${description}"`;

beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  provider = await startOpaqueTokenProvider();
  warn.mockRestore();
  const config = {
    auth: {
      mode: 'oauth2',
      oauth2: {
        introspection_url: provider.introspectionEndpoint,
        client_id: provider.clients.post.id,
        auth_method: 'client_secret_post',
        issuer: provider.issuer,
        audience: 'urn:authlayer:api',
        timeout_ms: 500,
        claims: { user_id: 'client_id', roles: 'realm_access.roles', tenant_id: 'org.id' },
      },
    },
    roles: [{ name: 'reporter', permissions: ['reports:read', 'invoke'] }],
  };
  app = await createApp(config, { env: { OAUTH2_CLIENT_SECRET: provider.clients.post.secret }, logger });
  secrets.push(provider.clients.post.secret);
});
afterAll(() => provider.close());

const invoke = (token: string) =>
  request(app).post('/invoke').set('authorization', `Bearer ${token}`).send({ query: 'q' });

describe('reference service, auth.mode oauth2', () => {
  it('answers 200 with the mapped claims for a token the provider issued', async () => {
    const token = await provider.obtainToken();
    secrets.push(token);
    const res = await invoke(token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      query: 'q',
      auth: expectedContext({
        method: 'oauth2',
        userId: 'reporting-job',
        email: 'jobs@acme.example',
        roles: ['reporter'],
        permissions: ['reports:read', 'invoke'],
        scopes: ['invoke', 'read'],
        tenantId: 'acme',
      }),
    });
    // What the provider said about the token, as it would be echoed whole.
    answers.push(`"realm_access":{"roles":["reporter"]}`, `"active":true`, provider.issuer);
  });

  it('answers 401 for a revoked token once the cached answer is gone (a new handler here: cache bound in the handler tests)', async () => {
    const token = await provider.obtainToken();
    secrets.push(token);
    await provider.revoke(token);
    const res = await invoke(token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    expect(res.headers['www-authenticate']).toBe(invalid('the credentials are not valid'));
  });

  it.each(['fail', 'hang', 'garbage', 'html'] as const)(
    'answers a bounded 401 key_unavailable when the provider is %s',
    async (mode) => {
      const token = await provider.obtainToken();
      secrets.push(token);
      provider.setMode(mode);
      try {
        const res = await invoke(token);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'unauthorized', message: 'no key is available to verify the token' });
        expect(res.headers['www-authenticate']).toBe(invalid('no key is available to verify the token'));
      } finally {
        provider.setMode('ok');
      }
    },
  );

  it('answers 401 without error for no token, and documents BearerAuth in /openapi.json', async () => {
    const res = await request(app).post('/invoke').send({ query: 'q' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="authlayer"');
    const doc = await request(app).get('/openapi.json');
    expect(doc.body.components.securitySchemes).toEqual({
      BearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'OAuth2 access token, checked at the provider (RFC 7662)',
      },
    });
    expect(doc.body.paths['/invoke'].post.security).toEqual([{ BearerAuth: [] }]);
    // /healthz adds the handler's key state when it reports one (the contract's `keys`).
    expect((await request(app).get('/healthz')).body).toEqual({
      status: 'ok',
      auth: { mode: 'oauth2', handler: 'oauth2' },
      config: { generation: 1, loaded_at: expect.any(String), last_reload_error: null },
      keys: { state: expect.any(String) },
    });
  });

  it('never puts a token, the client secret or an introspection answer in a log line', () => {
    expect(logger.lines.length).toBeGreaterThan(0);
    for (const line of logger.lines) {
      for (const secret of [...secrets, ...answers]) expect(line.message).not.toContain(secret);
    }
  });
});
