import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startIntrospectionServer,
  startJwksServer,
  startRedis,
  type RedisServer,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, requireRoles } from '../src/index.js';

// OpenTelemetry (contract, "Live changes without a restart"): with an SDK registered by the app,
// each decision is a span `authlayer.authenticate`, with child spans for key set fetches,
// introspection calls and Redis calls, and never a credential in any of them.
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const KEY = 'traced-api-key-0123456789';
let redis: RedisServer;
beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  redis = await startRedis();
});
afterAll(async () => {
  trace.disable();
  context.disable();
  await redis.stop();
});
afterEach(() => exporter.reset());

async function appFor(config: object, env: Record<string, string> = {}) {
  const auth = await createAuthMiddleware(config, { env, logger: createCaptureLogger() });
  const app = express();
  app.get('/me', auth, (req, res) => void res.json(req.auth));
  return { app, auth };
}
const named = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
/** Every name and attribute value of every span, to look for secrets in. */
const everything = () => JSON.stringify(exporter.getFinishedSpans().map((span) => [span.name, span.attributes]));

describe('spans', () => {
  it("a guard's 403 after auth: the one span says forbidden and the guard's reason", async () => {
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key' } },
      { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
    );
    const app = express();
    app.get('/admin', auth, requireRoles('admin'), (_req, res) => void res.json({}));
    await request(app).get('/admin').set('X-API-Key', KEY).expect(403);
    expect(named('authlayer.authenticate').map((span) => span.attributes)).toEqual([
      { 'authlayer.method': 'api_key', 'authlayer.outcome': 'forbidden', 'authlayer.reason': 'role_missing' },
    ]);
  });

  it('API key: one authlayer.authenticate span per decision, with method, outcome and reason only', async () => {
    const { app, auth } = await appFor({ auth: { mode: 'api_key' } }, { SERVICE_API_KEY: KEY });
    await request(app).get('/me').set('X-API-Key', KEY).expect(200);
    await request(app).get('/me').set('X-API-Key', `${KEY}-wrong`).expect(401);
    const spans = named('authlayer.authenticate');
    expect(spans.map((span) => span.attributes)).toEqual([
      { 'authlayer.method': 'api_key', 'authlayer.outcome': 'allowed' },
      { 'authlayer.method': 'api_key', 'authlayer.outcome': 'refused', 'authlayer.reason': 'credentials_invalid' },
    ]);
    expect(everything()).not.toContain(KEY);
    await auth.close();
  });

  it('JWT: the key set fetch is a child of the decision that waited for it; no token anywhere', async () => {
    const key = await createSigningKey('ES256');
    const jwks = await startJwksServer([key.publicJwk]);
    const { app, auth } = await appFor({ auth: { mode: 'jwt', jwt: { jwks_url: jwks.url, algorithms: ['ES256'] } } });
    const now = Math.floor(Date.now() / 1000);
    const token = await mintToken(key, { sub: 'ada', iat: now, exp: now + 300 });
    await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(200);
    const [decision] = named('authlayer.authenticate');
    const [fetch] = named('authlayer.key_set.fetch');
    expect(decision?.attributes).toEqual({ 'authlayer.method': 'jwt', 'authlayer.outcome': 'allowed' });
    expect(fetch?.attributes).toEqual({ 'authlayer.config': 'auth.jwt.jwks_url' });
    expect(parentOf(fetch!)).toBe(decision?.spanContext().spanId);
    expect(fetch?.spanContext().traceId).toBe(decision?.spanContext().traceId);
    expect(everything()).not.toContain(token.split('.')[2]);
    await auth.close();
    await jwks.close();
  });

  it('OAuth2: the introspection call is a child span, naming the client, never the token or secret', async () => {
    const idp = await startIntrospectionServer();
    const token = idp.issueToken({ sub: 'job', scope: 'invoke' });
    const config = {
      auth: { mode: 'oauth2', oauth2: { introspection_url: idp.url, client_id: idp.clientId, cache_seconds: 0 } },
    };
    const { app, auth } = await appFor(config, { OAUTH2_CLIENT_SECRET: idp.clientSecret });
    await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(200);
    const [decision] = named('authlayer.authenticate');
    const [introspect] = named('authlayer.introspect');
    expect(introspect?.attributes).toEqual({ 'authlayer.client_id': idp.clientId });
    expect(parentOf(introspect!)).toBe(decision?.spanContext().spanId);
    for (const secret of [token, idp.clientSecret]) expect(everything()).not.toContain(secret);
    await auth.close();
    await idp.close();
  });

  it('Redis: each rate_limit call on redis:// is a child span of its decision', async () => {
    const config = { auth: { mode: 'api_key' }, rate_limit: { requests_per_minute: 100, store: redis.url } };
    const { app, auth } = await appFor(config, { SERVICE_API_KEY: KEY });
    await request(app).get('/me').set('X-API-Key', KEY).expect(200);
    const [decision] = named('authlayer.authenticate');
    const calls = exporter.getFinishedSpans().filter((span) => span.name.startsWith('authlayer.redis'));
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.attributes).toEqual({ 'db.system': 'redis', 'authlayer.store': 'rate_limit' });
      expect(parentOf(call)).toBe(decision?.spanContext().spanId);
    }
    expect(everything()).not.toContain(KEY);
    await auth.close();
  });
});
