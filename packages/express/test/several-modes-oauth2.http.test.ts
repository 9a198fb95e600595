import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  expectedContext,
  startTestIdentityProvider,
  type TestIdentityProvider,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

// oauth2 in a list of modes, against testkit's loopback JWKS and introspection endpoint.
const KEY = 'an-api-key-0123456789';
let idp: TestIdentityProvider;
beforeAll(async () => {
  idp = await startTestIdentityProvider();
});
afterAll(() => idp.close());

async function appFor(modes: string[], apiKeys: object = {}) {
  const base = idp.config('jwt', idp.config('oauth2', {}));
  const config = { ...base, auth: { ...(base.auth as object), mode: modes, api_keys: apiKeys } };
  const auth = await createAuthMiddleware(config, {
    env: { ...idp.env, SERVICE_API_KEY: KEY },
    logger: createCaptureLogger(),
  });
  return express().post('/invoke', auth, (req, res) => res.json(req.auth));
}

describe('auth.mode lists with oauth2', () => {
  it('[jwt, oauth2]: a compact JWS goes to jwt, an opaque token to oauth2', async () => {
    const app = await appFor(['jwt', 'oauth2']);
    const jwt = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${await idp.signToken({ sub: 'u-1' })}`)
      .expect(200);
    expect(jwt.body).toEqual(expectedContext({ method: 'jwt', userId: 'u-1' }));
    const before = idp.hits.introspection;
    const opaque = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${idp.issueOpaqueToken({ sub: 'u-2' })}`)
      .expect(200);
    expect(opaque.body).toEqual(expectedContext({ method: 'oauth2', userId: 'u-2' }));
    expect(idp.hits.introspection).toBe(before + 1);
  });

  it('[api_key, oauth2] with allow_bearer off: the header goes to api_key, a Bearer token to oauth2', async () => {
    const app = await appFor(['api_key', 'oauth2'], { allow_bearer: false });
    expect((await request(app).post('/invoke').set('X-API-Key', KEY).expect(200)).body.method).toBe('api_key');
    const res = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${idp.issueOpaqueToken({ sub: 'u-3' })}`)
      .expect(200);
    expect(res.body.method).toBe('oauth2');
  });

  it('[api_key, oauth2] with allow_bearer off: a configured key sent as Bearer is refused here, never introspected', async () => {
    const app = await appFor(['api_key', 'oauth2'], { allow_bearer: false });
    const before = idp.hits.introspection;
    const res = await request(app).post('/invoke').set('Authorization', `Bearer ${KEY}`).expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    // The secret never left the process.
    expect(idp.hits.introspection).toBe(before);
  });

  it('[api_key, oauth2] with allow_bearer on: a Bearer API key stays local, never sent to the provider', async () => {
    const app = await appFor(['api_key', 'oauth2']);
    const before = idp.hits.introspection;
    expect((await request(app).post('/invoke').set('Authorization', `Bearer ${KEY}`).expect(200)).body.method).toBe(
      'api_key',
    );
    expect(idp.hits.introspection).toBe(before);
    // Any other Bearer value is an opaque token: oauth2 asks the provider.
    const opaque = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${idp.issueOpaqueToken({ sub: 'u-4' })}`)
      .expect(200);
    expect(opaque.body).toEqual(expectedContext({ method: 'oauth2', userId: 'u-4' }));
    expect(idp.hits.introspection).toBe(before + 1);
  });
});
