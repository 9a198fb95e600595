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

  it('describes the MCP keys: how each name matches, what each rule asks (params and claims by path), filter_lists', async () => {
    const app = await createApp(
      {
        auth: { mode: 'api_key' },
        // The table guards a proxied MCP server: the service has no /mcp route of its own.
        forward_auth: { enabled: true },
        mcp: { endpoint: '/mcp', filter_lists: true },
        access: {
          'POST /mcp': 'authenticated',
          'MCP tools/list': 'authenticated',
          'MCP tools/call admin_*': { roles: ['admin'], claims: { plan: ['pro'] } },
          'MCP tools/call edit_file': { params: { 'arguments.mode': ['read', 'secret-mode'] } },
          'MCP resources/read files://{tenant}/{+path}': {
            scopes: ['files:{tenant}:read'],
            params: { '{tenant}': { claim: 'tenant_id' } },
          },
          'MCP tools/call *': 'deny',
        },
      },
      { env, logger: captureLogger() },
    );
    const { body, text } = await request(app).get('/openapi.json').expect(200);
    const rule = { scopes: [], roles: [], permissions: [], claims: [], params: [], any: 0 };
    expect(body['x-authlayer-mcp']).toEqual({
      endpoint: '/mcp',
      filter_lists: true,
      keys: [
        { key: 'MCP tools/list', method: 'tools/list', match: 'method', rule: 'authenticated' },
        {
          key: 'MCP tools/call admin_*',
          method: 'tools/call',
          match: 'prefix',
          rule: { ...rule, roles: ['admin'], claims: ['plan'] },
        },
        {
          key: 'MCP tools/call edit_file',
          method: 'tools/call',
          match: 'exact',
          rule: { ...rule, params: ['arguments.mode'] },
        },
        {
          key: 'MCP resources/read files://{tenant}/{+path}',
          method: 'resources/read',
          match: 'template',
          variables: ['tenant', 'path'],
          rule: { ...rule, scopes: ['files:{tenant}:read'], params: ['{tenant}'] },
        },
        { key: 'MCP tools/call *', method: 'tools/call', match: 'default', rule: 'deny' },
      ],
    });
    // Accepted values are policy: neither a params value nor a claim value is published.
    expect(text).not.toContain('secret-mode');
    expect(text).not.toContain('"pro"');
    await app.shutdown();
  });

  it('has no MCP extension without an mcp section', async () => {
    const { body } = await request(await appFor({}))
      .get('/openapi.json')
      .expect(200);
    expect(body['x-authlayer-mcp']).toBeUndefined();
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
