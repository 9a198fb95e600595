import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import { createAuthMiddleware } from '../src/middleware.js';
import { openApiSecurity } from '@authlayer/engine';

const ENV = { SERVICE_API_KEY: 'openapi-key', OAUTH2_CLIENT_SECRET: 'secret' };
const securityOf = async (config: object) =>
  openApiSecurity((await createAuthMiddleware(config, { env: ENV, logger: createCaptureLogger() })).handler);
const JWKS = 'https://idp.example.com/jwks';

describe('openApiSecurity', () => {
  it('offers APIKeyHeader in the configured header, and BearerAuth when allow_bearer is on', async () => {
    expect(await securityOf({ auth: { api_keys: { header: 'X-Custom-Key' } } })).toEqual({
      schemes: {
        APIKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Custom-Key',
          description: 'API key in the X-Custom-Key header',
        },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'API key as a Bearer token' },
      },
      requirements: [{ APIKeyHeader: [] }, { BearerAuth: [] }],
    });
  });

  it('offers only APIKeyHeader when allow_bearer is off', async () => {
    const { schemes, requirements } = await securityOf({ auth: { api_keys: { allow_bearer: false } } });
    expect(Object.keys(schemes)).toEqual(['APIKeyHeader']);
    expect(requirements).toEqual([{ APIKeyHeader: [] }]);
  });

  it('offers BearerAuth with bearerFormat JWT in jwt mode', async () => {
    expect(await securityOf({ auth: { mode: 'jwt', jwt: { jwks_url: JWKS } } })).toEqual({
      schemes: { BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT access token' } },
      requirements: [{ BearerAuth: [] }],
    });
  });

  it('offers BearerAuth without a format in oauth2 mode', async () => {
    const config = {
      auth: { mode: 'oauth2', oauth2: { introspection_url: 'https://idp.example.com/i', client_id: 'c' } },
    };
    expect(await securityOf(config)).toEqual({
      schemes: {
        BearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'OAuth2 access token, checked at the provider (RFC 7662)',
        },
      },
      requirements: [{ BearerAuth: [] }],
    });
  });

  it('documents no scheme when the active handler checks nothing', async () => {
    expect(await securityOf({ auth: { api_keys: { enabled: false } } })).toEqual({ schemes: {}, requirements: [] });
    expect(openApiSecurity({})).toEqual({ schemes: {}, requirements: [] });
  });
});

describe('openApiSecurity with several modes', () => {
  it('lists each scheme as an alternative, one BearerAuth serving JWT and the API key', async () => {
    expect(await securityOf({ auth: { mode: ['api_key', 'jwt'], jwt: { jwks_url: JWKS } } })).toEqual({
      schemes: {
        APIKeyHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'API key in the X-API-Key header',
        },
        BearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'API key as a Bearer token, or JWT access token',
        },
      },
      requirements: [{ APIKeyHeader: [] }, { BearerAuth: [] }],
    });
  });

  it('drops bearerFormat when opaque tokens are taken too', async () => {
    const config = {
      auth: {
        mode: ['jwt', 'oauth2'],
        jwt: { jwks_url: JWKS },
        oauth2: { introspection_url: 'https://idp.example.com/i', client_id: 'c' },
      },
    };
    expect((await securityOf(config)).schemes).toEqual({
      BearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'JWT access token, or OAuth2 access token, checked at the provider (RFC 7662)',
      },
    });
  });
});
