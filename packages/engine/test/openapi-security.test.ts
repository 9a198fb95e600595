import { afterEach, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger } from '@authlayer/testkit';
import { createEngine, type Engine } from '../src/engine.js';
import { secretHeaders } from '../src/logger.js';
import { openApiSecurity } from '../src/openapi-security.js';
import { pathOf } from '../src/request/path-of.js';

// What the engine documents of its real modes' handlers (OpenAPI security schemes) and what it
// keeps out of logs (credential headers): each mode's parts, merged when several take one scheme.

const ENV = { SERVICE_API_KEY: 'openapi-key-0123456789abcdef', OAUTH2_CLIENT_SECRET: 'client-secret' };
const JWT = { jwks_url: 'https://idp.example.com/jwks' };
const OAUTH2 = { introspection_url: 'https://idp.example.com/introspect', client_id: 'api' };

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});
async function schemesOf(auth: Record<string, unknown>) {
  const engine = await createEngine({ auth }, { env: ENV, logger: createCaptureLogger() });
  open.push(engine);
  return openApiSecurity(engine.current().loaded.handler).schemes;
}

describe('openApiSecurity of several modes', () => {
  it('one BearerAuth for API keys sent as Bearer and JWTs: the JWT format holds, as only jwt names one', async () => {
    expect((await schemesOf({ mode: ['api_key', 'jwt'], jwt: JWT })).BearerAuth).toEqual({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: 'API key as a Bearer token, or JWT access token',
    });
  });

  it('JWTs and opaque tokens under one BearerAuth: no fixed format', async () => {
    const { BearerAuth } = await schemesOf({ mode: ['jwt', 'oauth2'], jwt: JWT, oauth2: OAUTH2 });
    expect(BearerAuth).toEqual({ type: 'http', scheme: 'bearer', description: expect.any(String) });
  });

  it('opaque tokens alone: no format either (the mode says it has none)', async () => {
    expect(await schemesOf({ mode: 'oauth2', oauth2: OAUTH2 })).toEqual({
      BearerAuth: { type: 'http', scheme: 'bearer', description: expect.any(String) },
    });
  });

  it('a JWT mode that requires DPoP: DPoPAuth alone, scheme DPoP (RFC 9449)', async () => {
    expect(await schemesOf({ mode: 'jwt', jwt: { ...JWT, dpop: 'required' } })).toEqual({
      DPoPAuth: { type: 'http', scheme: 'DPoP', description: expect.stringContaining('DPoP proof') },
    });
  });
});

describe('openApiSecurity of no mode', () => {
  it('API keys turned off (the no-auth handler): no scheme, no requirement', async () => {
    const engine = await createEngine({ auth: { api_keys: { enabled: false } } }, { logger: createCaptureLogger() });
    open.push(engine);
    expect(openApiSecurity(engine.current().loaded.handler)).toEqual({ schemes: {}, requirements: [] });
  });
});

describe('secretHeaders', () => {
  it("a middleware's serving handler without its config: the handler's headers", () => {
    expect(secretHeaders({ handler: { credentialHeaders: ['X-Signature'] } })).toContain('x-signature');
  });

  it('a config that writes no mode section: the standard headers alone', () => {
    expect(secretHeaders(parseAuthConfig({ auth: { mode: 'api_key' } }))).toEqual([
      'authorization',
      'proxy-authorization',
      'cookie',
      'x-api-key',
    ]);
  });
});

describe('pathOf', () => {
  it.each([
    [undefined, '/'],
    ['', '/'],
    ['?page=2', '/'],
    ['/reports?page=2', '/reports'],
    ['/reports', '/reports'],
  ])('the path of %p is %p', (target, path) => {
    expect(pathOf(target)).toBe(path);
  });
});
