import { describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey, expectedContext, mintToken } from '@authlayer/testkit';
import request from 'supertest';
import { createApp } from '../src/app.js';

// RFC 9728: the metadata of the protected resource, from the config's `resource` section, and
// `resource_metadata` in every 401 challenge.
const KEY = 'resource-key-0123456789abcdef';

async function service(resource: object | null) {
  const signing = await createSigningKey('RS256');
  return createApp(
    {
      auth: {
        mode: ['api_key', 'jwt'],
        jwt: { public_key_env: 'JWT_PUBLIC_KEY', issuer: 'https://issuer.example', audience: 'api' },
      },
      access: {
        'POST /invoke': { any: [{ scopes: ['invoke'] }, { scopes: ['admin', 'invoke'] }] },
      },
      ...(resource === null ? {} : { resource }),
    },
    { env: { SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue }, logger: createCaptureLogger() },
  );
}

describe('RFC 9728 protected resource metadata', () => {
  it('serves the metadata at the well-known path of the identifier, without authentication', async () => {
    const app = await service({
      identifier: 'https://api.example.com/v1',
      name: 'Invoke API',
      documentation: 'https://api.example.com/docs',
    });
    const res = await request(app).get('/.well-known/oauth-protected-resource/v1').expect(200);
    expect(res.body).toEqual({
      resource: 'https://api.example.com/v1',
      authorization_servers: ['https://issuer.example'],
      scopes_supported: ['invoke', 'admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'Invoke API',
      resource_documentation: 'https://api.example.com/docs',
    });
  });

  it('names the metadata in the Bearer challenge of every 401, and leaves the API key challenge as it is', async () => {
    const app = await service({ identifier: 'https://api.example.com' });
    const missing = await request(app).post('/invoke').send({ query: 'q' }).expect(401);
    expect(missing.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer", resource_metadata="https://api.example.com/.well-known/oauth-protected-resource"',
    );
    const invalid = await request(app)
      .post('/invoke')
      .set('Authorization', 'Bearer a.b.c')
      .send({ query: 'q' })
      .expect(401);
    expect(invalid.headers['www-authenticate']).toMatch(
      /Bearer realm="authlayer", error="invalid_token", error_description="[^"]+", resource_metadata="https:\/\/api\.example\.com\/\.well-known\/oauth-protected-resource"$/,
    );
    await request(app).get('/.well-known/oauth-protected-resource').expect(200);
  });

  it('without a resource section: no metadata, and challenges as before', async () => {
    const app = await service(null);
    await request(app).get('/.well-known/oauth-protected-resource').expect(404);
    const missing = await request(app).post('/invoke').send({ query: 'q' }).expect(401);
    expect(missing.headers['www-authenticate']).toBe(
      'ApiKey realm="authlayer", header="X-API-Key", Bearer realm="authlayer"',
    );
  });

  it('refuses an identifier that is not an http(s) URL, or has a fragment', async () => {
    await expect(service({ identifier: 'api.example.com' })).rejects.toThrow(
      /^resource\.identifier: must be an http\(s\) URL/,
    );
    await expect(service({ identifier: 'https://api.example.com/#x' })).rejects.toThrow(/must not have a fragment/);
  });

  it("answers /invoke with the AuthContext's JSON: the token req.auth carries for MCP is not in it", async () => {
    const signing = await createSigningKey('RS256');
    const logger = createCaptureLogger();
    const app = await createApp(
      {
        auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_PUBLIC_KEY', issuer: 'https://issuer.example' } },
        access: { 'POST /invoke': { scopes: ['invoke'] } },
        resource: { identifier: 'https://api.example.com' },
      },
      { env: { JWT_PUBLIC_KEY: signing.envValue }, logger },
    );
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: 'https://issuer.example', sub: 'u-1', scope: 'invoke', iat: now, exp: now + 60 };
    // No audience written: the resource identifier is the audience a token must name.
    const other = await mintToken(signing, { ...claims, aud: 'https://other.example.com' });
    await request(app).post('/invoke').set('Authorization', `Bearer ${other}`).send({ query: 'q' }).expect(401);
    const token = await mintToken(signing, { ...claims, aud: 'https://api.example.com' });
    const res = await request(app).post('/invoke').set('Authorization', `Bearer ${token}`).send({ query: 'q' });
    expect(res.status).toBe(200);
    expect(res.body.auth).toEqual(expectedContext({ method: 'jwt', userId: 'u-1', scopes: ['invoke'] }));
    expect(res.text).not.toContain(token);
    expect(logger.text.join('\n')).not.toContain(token);
  });
});
