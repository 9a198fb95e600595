import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { createCaptureLogger as captureLogger } from '@authlayer/testkit';

const env = { SERVICE_API_KEY: 'docs-test-key' };
const appFor = (apiKeys: object) =>
  createApp({ auth: { mode: 'api_key', api_keys: apiKeys } }, { env, logger: captureLogger() });

describe('GET /openapi.json', () => {
  it('is an OpenAPI 3.1 document with APIKeyHeader and BearerAuth, required on /invoke only', async () => {
    const res = await request(await appFor({}))
      .get('/openapi.json')
      .expect(200)
      .expect('Content-Type', /json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.securitySchemes).toEqual({
      APIKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key in the X-API-Key header' },
      BearerAuth: { type: 'http', scheme: 'bearer', description: 'API key as a Bearer token' },
    });
    expect(res.body.paths['/invoke'].post.security).toEqual([{ APIKeyHeader: [] }, { BearerAuth: [] }]);
    expect(res.body.security).toBeUndefined();
    expect(Object.keys(res.body.paths['/invoke'].post.responses)).toEqual(['200', '400', '401', '413', '415']);
  });

  it('documents 429 with Retry-After on /invoke when a rate_limit is configured', async () => {
    const app = await createApp(
      { auth: { mode: 'api_key' }, rate_limit: { requests_per_minute: 60 } },
      { env, logger: captureLogger() },
    );
    const { body } = await request(app).get('/openapi.json').expect(200);
    const limited = body.paths['/invoke'].post.responses['429'];
    expect(limited.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
    expect(limited.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
  });

  it('names the configured header, and leaves BearerAuth out when allow_bearer is false', async () => {
    const res = await request(await appFor({ header: 'X-Team-Key', allow_bearer: false }))
      .get('/openapi.json')
      .expect(200);
    expect(res.body.components.securitySchemes).toEqual({
      APIKeyHeader: {
        type: 'apiKey',
        in: 'header',
        name: 'X-Team-Key',
        description: 'API key in the X-Team-Key header',
      },
    });
    expect(res.body.paths['/invoke'].post.security).toEqual([{ APIKeyHeader: [] }]);
  });

  it('documents no scheme when API keys are disabled (nothing is checked)', async () => {
    const res = await request(await appFor({ enabled: false }))
      .get('/openapi.json')
      .expect(200);
    expect(res.body.components.securitySchemes ?? {}).toEqual({});
    expect(res.body.paths['/invoke'].post.security).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('redirects to /docs/, which serves Swagger UI over /openapi.json without authentication', async () => {
    const app = await appFor({});
    await request(app).get('/docs').expect(301).expect('Location', '/docs/');
    const page = await request(app).get('/docs/').expect(200).expect('Content-Type', /html/);
    expect(page.text).toContain('<title>authlayer reference service</title>');
    expect(page.text).toContain('swagger-ui-bundle.js');
    expect(page.text).toContain('.swagger-ui .topbar { display: none }');
    const init = await request(app).get('/docs/swagger-ui-init.js').expect(200);
    expect(init.text).toContain('"swaggerUrl": "/openapi.json"');
    await request(app)
      .get('/docs/swagger-ui-bundle.js')
      .expect(200)
      .expect('Content-Type', /javascript/);
  });
});
