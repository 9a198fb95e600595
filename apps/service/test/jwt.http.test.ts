import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  forgeToken,
  mintToken,
  OIDC_RESOURCE,
  signRaw,
  startOidcProvider,
  startRecordingServer,
  type OidcProvider,
  type RecordingServer,
} from '@authlayer/testkit';
import type { Express } from 'express';
import { exportJWK, generateKeyPair } from 'jose';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { capturedServiceLog, expectCleanLog } from './service-log.js';

// The reference service in JWT mode, trusting a real OpenID provider (oidc-provider on loopback).
const logger = createCaptureLogger();
let provider: OidcProvider;
let other: OidcProvider;
let attacker: RecordingServer;
let app: Express;
let good: string;
const seenTokens: string[] = [];
let logLines: ReturnType<typeof capturedServiceLog>['capture'];

const invalid = (description: string) =>
  `Bearer realm="authlayer", error="invalid_token", error_description="${description}"`;

beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  [provider, other, attacker] = await Promise.all([
    startOidcProvider('RS256', 'idp-key-1'),
    startOidcProvider('ES256', 'other-idp-key'),
    startRecordingServer(),
  ]);
  warn.mockRestore();
  const config = {
    auth: {
      mode: 'jwt',
      jwt: {
        jwks_url: provider.jwksUri,
        issuer: provider.issuer,
        audience: OIDC_RESOURCE,
        algorithms: ['RS256', 'ES256'],
        claims: { roles: 'realm_access.roles', tenant_id: 'org.id' },
      },
    },
    roles: [{ name: 'reporter', permissions: ['reports:read', 'invoke'] }],
  };
  const service = capturedServiceLog(config);
  logLines = service.capture;
  app = await createApp(config, { env: {}, logger, log: service.log });
  good = await provider.obtainToken();
  seenTokens.push(good);
});
afterAll(async () => {
  await Promise.all([provider.close(), other.close(), attacker.close()]);
});

const invoke = (authorization?: string) => {
  const req = request(app).post('/invoke').send({ query: 'report' });
  return authorization === undefined ? req : req.set('Authorization', authorization);
};

describe('the reference service, JWT mode, with a real OpenID provider', () => {
  it('accepts the provider token and answers with the mapped AuthContext', async () => {
    const res = await invoke(`Bearer ${good}`).expect(200);
    expect(res.body).toEqual({
      query: 'report',
      auth: {
        method: 'jwt',
        userId: provider.clientId,
        email: null,
        name: null,
        roles: ['reporter'],
        permissions: ['reports:read', 'invoke'],
        scopes: ['invoke', 'read'],
        tenantId: 'acme',
      },
    });
  });

  it('reports jwt mode on /healthz and BearerAuth with bearerFormat JWT in the OpenAPI document', async () => {
    expect((await request(app).get('/healthz').expect(200)).body).toEqual({
      status: 'ok',
      auth: { mode: 'jwt', handler: 'jwt' },
      config: { generation: 1, loaded_at: expect.any(String), last_reload_error: null },
      keys: { state: expect.stringMatching(/^(fresh|not_fetched)$/) },
    });
    const doc = (await request(app).get('/openapi.json').expect(200)).body;
    expect(doc.components.securitySchemes).toEqual({
      BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT access token' },
    });
    expect(doc.paths['/invoke'].post.security).toEqual([{ BearerAuth: [] }]);
  });

  it('answers 401 with the RFC 6750 challenge without error when no token is sent', async () => {
    const res = await invoke().expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="authlayer"');
    expect(res.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
  });

  it("refuses a second provider's token", async () => {
    const foreign = await other.obtainToken();
    seenTokens.push(foreign);
    const res = await invoke(`Bearer ${foreign}`).expect(401);
    expect(res.headers['www-authenticate']).toBe(invalid('the token signature is invalid'));
  });
});

describe('hostile tokens over HTTP (RFC 8725): each 401, and the service stays healthy', () => {
  const segments = () => good.split('.') as [string, string, string];
  const payload = () => JSON.parse(Buffer.from(segments()[1], 'base64url').toString()) as Record<string, unknown>;
  const header = () => JSON.parse(Buffer.from(segments()[0], 'base64url').toString()) as Record<string, unknown>;
  const attackerSigned = async (extraHeader: Record<string, unknown>) => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = await exportJWK(publicKey);
    const key = { alg: 'RS256' as const, kid: 'idp-key-1', signingKey: privateKey, publicJwk: jwk, envValue: '' };
    return mintToken(key, payload(), { typ: 'at+jwt', jwk, ...extraHeader });
  };

  const cases: [string, () => Promise<string> | string, string][] = [
    ...['none', 'None', 'NONE', 'nOnE'].map((alg): [string, () => string, string] => [
      `alg ${alg}`,
      () => forgeToken({ ...header(), alg }, payload()),
      'the token algorithm is not allowed',
    ]),
    [
      'alg none with the real signature',
      () => forgeToken({ ...header(), alg: 'none' }, payload(), segments()[2]),
      'the token algorithm is not allowed',
    ],
    [
      'jku, x5u, jwk and x5c pointing at an attacker key',
      () =>
        attackerSigned({
          jku: `${attacker.origin}/jwks`,
          x5u: `${attacker.origin}/cert`,
          x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A'],
        }),
      'the token signature is invalid',
    ],
    [
      'a hostile kid',
      async () => mintToken(await createSigningKey('RS256', { kid: '../../../etc/passwd' }), payload()),
      'the token signature is invalid',
    ],
    [
      'HS256 keyed with the public JWK text',
      async () =>
        signRaw(
          new TextEncoder().encode(await (await fetch(provider.jwksUri)).text()),
          { ...header(), alg: 'HS256' },
          payload(),
        ),
      'the token algorithm is not allowed',
    ],
    [
      'a tampered payload',
      () =>
        `${segments()[0]}.${Buffer.from(JSON.stringify({ ...payload(), org: { id: 'evil' } })).toString('base64url')}.${segments()[2]}`,
      'the token signature is invalid',
    ],
    ['a stripped signature', () => `${segments()[0]}.${segments()[1]}.`, 'the token signature is invalid'],
    ['five segments (a JWE)', () => `${good}.AAAA.BBBB`, 'the token is malformed'],
    ['a 12 KB token', () => `${segments()[0]}.${'A'.repeat(12_000)}.${segments()[2]}`, 'the token is malformed'],
    ['garbage', () => 'not-a-jwt', 'the token is malformed'],
  ];

  it.each(cases)('%s', async (_name, make, description) => {
    const token = await make();
    seenTokens.push(token);
    const res = await invoke(`Bearer ${token}`).expect(401);
    expect(res.headers['www-authenticate']).toBe(invalid(description));
    expect(res.body).toEqual({ error: 'unauthorized', message: description });
    await invoke(`Bearer ${good}`).expect(200);
  });

  it('never fetched anything from the attacker, and never logged or echoed a token', () => {
    expect(attacker.requests).toEqual([]);
    const logged = logger.text.join('\n');
    for (const token of seenTokens) expect(logged).not.toContain(token.slice(0, 40));
    // The service's own log: JSON, one audit line per decision, no token, not even its start.
    expectCleanLog(logLines, [...new Set(seenTokens.map((token) => token.slice(0, 40)))]);
  });
});
