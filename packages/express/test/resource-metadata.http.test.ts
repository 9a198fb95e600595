import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

// RFC 9728 in the library: the metadata document and URL, and resource_metadata in the 401s.
const KEY = 'resource-key-0123456789abcdef';

describe('auth.resourceMetadata and the 401 challenges', () => {
  it('gives the document (scopes from the access table) and names it in every Bearer challenge', async () => {
    const auth = await createAuthMiddleware(
      {
        auth: { mode: 'api_key' },
        access: {
          'GET /a': { scopes: ['read'], any: [{ scopes: ['write'] }, { roles: ['x'] }] },
          'GET /b': 'public',
          'GET /c': { scopes: ['read'] },
        },
        resource: { identifier: 'https://api.example.com/v1', name: 'API' },
      },
      { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
    );
    expect(auth.resourceMetadata()).toEqual({
      url: 'https://api.example.com/.well-known/oauth-protected-resource/v1',
      document: {
        resource: 'https://api.example.com/v1',
        authorization_servers: [],
        scopes_supported: ['read', 'write'],
        bearer_methods_supported: ['header'],
        resource_name: 'API',
      },
    });
    const app = express();
    app.use(auth.access);
    app.get('/a', (_req, res) => res.end());
    const res = await request(app).get('/a').expect(401);
    expect(res.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/v1"',
    );
  });

  it('is null without a resource section', async () => {
    const auth = await createAuthMiddleware(
      { auth: { mode: 'api_key' } },
      { env: { SERVICE_API_KEY: KEY }, logger: createCaptureLogger() },
    );
    expect(auth.resourceMetadata()).toBeNull();
  });
});
