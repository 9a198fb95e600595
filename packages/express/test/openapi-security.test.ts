import { describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { openApiSecurity } from '../src/openapi-security.js';

describe('openApiSecurity', () => {
  it('offers APIKeyHeader in the configured header, and BearerAuth when allow_bearer is on', () => {
    const config = parseAuthConfig({ auth: { api_keys: { header: 'X-Custom-Key' } } });
    expect(openApiSecurity(config)).toEqual({
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

  it('offers only APIKeyHeader when allow_bearer is off', () => {
    const { schemes, requirements } = openApiSecurity(parseAuthConfig({ auth: { api_keys: { allow_bearer: false } } }));
    expect(Object.keys(schemes)).toEqual(['APIKeyHeader']);
    expect(requirements).toEqual([{ APIKeyHeader: [] }]);
  });

  it('offers BearerAuth with bearerFormat JWT in jwt mode', () => {
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example.com/jwks' } } });
    expect(openApiSecurity(config)).toEqual({
      schemes: { BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'JWT access token' } },
      requirements: [{ BearerAuth: [] }],
    });
  });

  it('offers BearerAuth without a format in oauth2 mode', () => {
    const config = parseAuthConfig({
      auth: { mode: 'oauth2', oauth2: { introspection_url: 'https://idp.example.com/i', client_id: 'c' } },
    });
    expect(openApiSecurity(config)).toEqual({
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

  it('documents no scheme when the active handler checks nothing', () => {
    const config = parseAuthConfig({ auth: { mode: 'jwt', jwt: { jwks_url: 'https://idp.example.com/jwks' } } });
    expect(openApiSecurity(config, 'none')).toEqual({ schemes: {}, requirements: [] });
  });
});

describe('openApiSecurity with several modes', () => {
  const both = parseAuthConfig({
    auth: { mode: ['api_key', 'jwt'], jwt: { jwks_url: 'https://idp.example.com/jwks' } },
  });

  it('lists each scheme as an alternative, one BearerAuth serving JWT and the API key', () => {
    expect(openApiSecurity(both)).toEqual({
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
          description: 'JWT access token, or API key as a Bearer token',
        },
      },
      requirements: [{ APIKeyHeader: [] }, { BearerAuth: [] }],
    });
  });

  it('documents only the modes that authenticate', () => {
    expect(Object.keys(openApiSecurity(both, ['api_key']).schemes)).toEqual(['APIKeyHeader', 'BearerAuth']);
    expect(openApiSecurity(both, ['jwt']).schemes.BearerAuth?.description).toBe('JWT access token');
    expect(openApiSecurity(both, ['none'])).toEqual({ schemes: {}, requirements: [] });
  });
});
