import { beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey, expectedContext, mintToken, type SigningKey } from '@authlayer/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { parseAuthConfig } from '@authlayer/core';
import { createApp } from '../src/app.js';
import { checkConfig } from '../src/check-config.js';

// The reference service with auth.mode [api_key, jwt] and access "POST /invoke": {permissions: [invoke]}.
const NOW = 1_800_000_000;
const KEY = 'reference-key.with.dots';
const CONFIG = {
  auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'JWT_PUBLIC_KEY' } },
  roles: [{ name: 'caller', permissions: ['invoke'] }],
  access: { 'POST /invoke': { permissions: ['invoke'] } },
};

let signing: SigningKey;
let app: Express;
const env = () => ({ SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue });
const options = () => ({ env: env(), logger: createCaptureLogger(), now: () => NOW * 1000 });

beforeAll(async () => {
  signing = await createSigningKey('RS256');
  app = await createApp(CONFIG, options());
});

const token = (claims: object) => mintToken(signing, { sub: 'u-1', exp: NOW + 60, ...claims });

describe('the reference service with access and several modes', () => {
  it('shows mode and handler as lists on /healthz', async () => {
    const res = await request(app).get('/healthz').expect(200);
    expect(res.body).toEqual({
      status: 'ok',
      auth: { mode: ['api_key', 'jwt'], handler: ['api_key', 'jwt'] },
      config: { generation: 1, loaded_at: expect.any(String), last_reload_error: null },
    });
  });

  it('lets a JWT whose role grants invoke call /invoke', async () => {
    const res = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${await token({ roles: ['caller'] })}`)
      .send({ query: 'q' })
      .expect(200);
    expect(res.body).toEqual({
      query: 'q',
      auth: expectedContext({ method: 'jwt', userId: 'u-1', roles: ['caller'], permissions: ['invoke'] }),
    });
  });

  it('answers 403 to a caller without the permission, before the body is read', async () => {
    const res = await request(app)
      .post('/invoke')
      .set('X-API-Key', KEY)
      .set('Content-Type', 'text/plain')
      .send('not json')
      .expect(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'the permission invoke is required' });
    const jwt = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${await token({})}`)
      .send({ query: 'q' })
      .expect(403);
    expect(jwt.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="insufficient_scope", error_description="the permission invoke is required"',
    );
  });

  it('still answers 401 without credentials, with both challenges', async () => {
    const res = await request(app).post('/invoke').send({ query: 'q' }).expect(401);
    expect(res.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    );
  });

  it('documents the schemes as alternatives and 403 for the guarded operation', async () => {
    const doc = (await request(app).get('/openapi.json').expect(200)).body;
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['APIKeyHeader', 'BearerAuth']);
    expect(doc.paths['/invoke'].post.security).toEqual([{ APIKeyHeader: [] }, { BearerAuth: [] }]);
    expect(doc.paths['/invoke'].post.responses['403']).toEqual({
      description: 'Authenticated but not allowed: needs permissions invoke',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    });
  });

  it('documents no 403 when /invoke has no access entry', async () => {
    const open = await createApp({ auth: { mode: 'api_key' } }, options());
    const doc = (await request(open).get('/openapi.json').expect(200)).body;
    expect(doc.paths['/invoke'].post.responses['403']).toBeUndefined();
  });

  it('refuses at start-up an access entry that matches none of its routes, naming it', async () => {
    const config = { ...CONFIG, access: { 'GET /report': { roles: ['ops'] }, 'POST /invoke': 'authenticated' } };
    await expect(createApp(config, options())).rejects.toMatchObject({
      name: 'ConfigError',
      message: expect.stringMatching(/^access\.GET \/report: the service has no route that GET \/report matches/),
    });
    const noMetrics = { ...CONFIG, access: { 'GET /metrics': { roles: ['ops'] } } };
    await expect(createApp(noMetrics, options())).rejects.toMatchObject({ name: 'ConfigError' });
  });
});

describe('every route of the service under the table', () => {
  const ops = { roles: [{ name: 'ops', permissions: ['invoke'] }] };

  it('guards its own routes as the file says; the rest keep their built-in entries', async () => {
    const config = {
      ...CONFIG,
      ...ops,
      metrics: true,
      access: { 'GET /metrics': { roles: ['ops'] }, '* /docs{/*path}': 'deny', 'POST /invoke': 'public' },
    };
    const service = await createApp(config, options());
    await request(service).get('/metrics').expect(401);
    await request(service).get('/metrics').set('X-API-Key', KEY).expect(403);
    await request(service).get('/docs/').expect(403);
    await request(service).get('/healthz').expect(200);
    const open = await request(service).post('/invoke').send({ query: 'q' }).expect(200);
    expect(open.body).toEqual({ query: 'q' });
    const doc = (await request(service).get('/openapi.json').expect(200)).body;
    expect(doc.paths['/invoke'].post.security).toEqual([]);
    expect(doc.paths['/invoke'].post.responses['401']).toBeUndefined();
  });

  it('without access.default unknown paths stay 404; with default: deny they are refused first', async () => {
    await request(app).get('/nowhere').expect(404);
    const closed = await createApp({ ...CONFIG, access: { default: 'deny' } }, options());
    await request(closed).get('/nowhere').set('X-API-Key', KEY).expect(403);
    await request(closed).get('/healthz').expect(200);
    await request(closed).post('/invoke').set('X-API-Key', KEY).send({ query: 'q' }).expect(200);
  });

  it('counts 403s in authlayer_auth_decisions_total with their reason', async () => {
    const service = await createApp({ ...CONFIG, metrics: true }, options());
    await request(service).post('/invoke').set('X-API-Key', KEY).send({ query: 'q' }).expect(403);
    const text = (await request(service).get('/metrics').expect(200)).text;
    expect(text).toMatch(
      /^authlayer_auth_decisions_total\{method="api_key",outcome="forbidden",reason="permission_missing"\} 1$/m,
    );
  });

  it('documents an optional /invoke with the anonymous alternative', async () => {
    const service = await createApp({ ...CONFIG, access: { 'POST /invoke': 'optional' } }, options());
    const doc = (await request(service).get('/openapi.json').expect(200)).body;
    expect(doc.paths['/invoke'].post.security).toEqual([{ APIKeyHeader: [] }, { BearerAuth: [] }, {}]);
    const anonymous = await request(service).post('/invoke').send({ query: 'q' }).expect(200);
    expect(anonymous.body.auth.method).toBe('none');
  });
});

describe('several modes with a missing package', () => {
  const notFound = (name: string) =>
    Object.assign(new Error(`Cannot find package '${name}' imported from /x.js`), { code: 'ERR_MODULE_NOT_FOUND' });
  const hideJwt = (name: string) => (name === '@authlayer/jwt' ? Promise.reject(notFound(name)) : import(name));

  it('leaves the missing mode out (warning), lists the rest on /healthz, and keeps the guard closed', async () => {
    const logger = createCaptureLogger();
    const partial = await createApp(CONFIG, { ...options(), logger, importModule: hideJwt });
    const health = await request(partial).get('/healthz').expect(200);
    expect(health.body.auth).toEqual({ mode: ['api_key', 'jwt'], handler: ['api_key'] });
    expect(logger.text).toEqual([
      expect.stringMatching(/^warn: auth\.mode lists jwt but the package @authlayer\/jwt is not installed/),
    ]);
    await request(partial)
      .post('/invoke')
      .set('Authorization', `Bearer ${await token({ roles: ['caller'] })}`)
      .send({ query: 'q' })
      .expect(401);
    await request(partial).post('/invoke').set('X-API-Key', KEY).send({ query: 'q' }).expect(403);
  });

  it('fails start-up with auth.fallback: refuse', async () => {
    const config = { ...CONFIG, auth: { ...CONFIG.auth, fallback: 'refuse' } };
    await expect(createApp(config, { ...options(), importModule: hideJwt })).rejects.toMatchObject({
      name: 'ConfigError',
      path: 'auth.mode',
    });
  });
});

describe('claims and step-up rules in the reference service', () => {
  const STEP_UP = {
    ...CONFIG,
    access: { 'POST /invoke': { claims: { 'https://example.com/orgId': ['acme'] }, acr: ['urn:mfa'], max_age: 300 } },
  };

  it('answers a step-up 401 and a claim 403 on /invoke, and /openapi.json says what each needs', async () => {
    const service = await createApp(STEP_UP, options());
    const weak = await token({ 'https://example.com/orgId': 'acme', acr: 'urn:pwd', auth_time: NOW });
    const res = await request(service).post('/invoke').set('Authorization', `Bearer ${weak}`).send({ query: 'q' });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="insufficient_user_authentication", error_description="a stronger or more ' +
        'recent authentication is required", acr_values="urn:mfa", max_age=300',
    );
    await request(service).post('/invoke').set('X-API-Key', KEY).send({ query: 'q' }).expect(403);
    const strong = await token({ 'https://example.com/orgId': 'acme', acr: 'urn:mfa', auth_time: NOW - 300 });
    await request(service).post('/invoke').set('Authorization', `Bearer ${strong}`).send({ query: 'q' }).expect(200);
    const { responses } = (await request(service).get('/openapi.json').expect(200)).body.paths['/invoke'].post;
    expect(responses['401'].description).toBe(
      'Not authenticated (see the WWW-Authenticate header), or a step-up is needed ' +
        '(error "insufficient_user_authentication", RFC 9470): acr urn:mfa, an authentication at most 300 seconds old',
    );
    // The claim by its path only: the accepted values are policy, not for a public document.
    expect(responses['403'].description).toBe(
      'Authenticated but not allowed: needs an accepted value of the claims https://example.com/orgId',
    );
  });

  it('lists no 403 for a rule that only asks for a step-up (it answers 401)', async () => {
    const service = await createApp({ ...CONFIG, access: { 'POST /invoke': { max_age: 60 } } }, options());
    const { responses } = (await request(service).get('/openapi.json').expect(200)).body.paths['/invoke'].post;
    expect(responses['403']).toBeUndefined();
    expect(responses['401'].description).toMatch(/: an authentication at most 60 seconds old$/);
  });

  it('--check shows the fields as the YAML writes them, claim paths untouched', async () => {
    const config = parseAuthConfig({
      ...STEP_UP,
      access: { 'POST /invoke': { ...STEP_UP.access['POST /invoke'], any: [{ claims: { orgId: [1] } }] } },
    });
    const report = await checkConfig('service.yaml', config, options());
    expect((report.access as Record<string, unknown>)['POST /invoke']).toEqual({
      permissions: [],
      scopes: [],
      roles: [],
      claims: { 'https://example.com/orgId': ['acme'] },
      acr: ['urn:mfa'],
      max_age: 300,
      any: [{ permissions: [], scopes: [], roles: [], claims: { orgId: [1] } }],
      modes: null,
      tenant_param: null,
    });
  });
});
