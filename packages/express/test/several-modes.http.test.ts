import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  createCaptureLogger,
  createSigningKey,
  expectedContext,
  forgeToken,
  mintToken,
  type SigningKey,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, requirePermissions, type AuthMiddleware } from '../src/index.js';

// auth.mode: [api_key, jwt] on one route, with real keys: an API key from the environment and an
// RS256 key pair (public key in JWT_PUBLIC_KEY). The clock is pinned.
const NOW = 1_800_000_000;
const KEY = 'client.key.with.dots';
const API_KEY_CHALLENGE = 'ApiKey realm="authlayer", header="X-API-Key"';

let signing: SigningKey;
let auth: AuthMiddleware;
let app: express.Express;

beforeAll(async () => {
  signing = await createSigningKey('RS256');
  auth = await createAuthMiddleware(
    {
      auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'JWT_PUBLIC_KEY', leeway_seconds: 0 } },
      roles: [{ name: 'caller', permissions: ['invoke'] }],
    },
    {
      env: { SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue },
      logger: createCaptureLogger(),
      now: () => NOW * 1000,
    },
  );
  app = express();
  app.post('/invoke', auth, (req, res) => res.json(req.auth));
  app.post('/guarded', auth, requirePermissions('invoke'), (req, res) => res.json(req.auth));
});

const token = (claims: object) => mintToken(signing, { sub: 'u-1', exp: NOW + 60, ...claims });

describe('auth.mode: [api_key, jwt]', () => {
  it('says what it is: both modes, both methods', () => {
    expect(auth.modes).toEqual(['api_key', 'jwt']);
    expect(auth.methods).toEqual(['api_key', 'jwt']);
    expect(auth.mode).toBe('api_key');
  });

  it('accepts the API key in its header with method "api_key"', async () => {
    const res = await request(app).post('/invoke').set('X-API-Key', KEY).expect(200);
    expect(res.body).toEqual(expectedContext({ method: 'api_key', userId: 'SERVICE_API_KEY' }));
  });

  it('accepts a JWT with method "jwt"', async () => {
    const res = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${await token({ roles: ['caller'] })}`)
      .expect(200);
    expect(res.body).toEqual(
      expectedContext({ method: 'jwt', userId: 'u-1', roles: ['caller'], permissions: ['invoke'] }),
    );
  });

  it('accepts a Bearer API key that contains dots (not a compact JWS) with method "api_key"', async () => {
    const res = await request(app).post('/invoke').set('Authorization', `Bearer ${KEY}`).expect(200);
    expect(res.body.method).toBe('api_key');
  });

  it("gives an expired JWT the JWT's reason, with every challenge", async () => {
    const res = await request(app)
      .post('/invoke')
      .set('Authorization', `Bearer ${await token({ exp: NOW - 1 })}`)
      .expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the token has expired' });
    expect(res.headers['www-authenticate']).toBe(
      `Bearer realm="authlayer", error="invalid_token", error_description="the token has expired", ${API_KEY_CHALLENGE}`,
    );
  });

  it("gives a wrong API key the API key's reason, with every challenge", async () => {
    const res = await request(app).post('/invoke').set('X-API-Key', 'wrong').expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the credentials are not valid' });
    expect(res.headers['www-authenticate']).toBe(
      `${API_KEY_CHALLENGE}, Bearer realm="authlayer", error="invalid_token", error_description="the credentials are not valid"`,
    );
    const bearer = await request(app).post('/invoke').set('Authorization', 'Bearer wrong.key').expect(401);
    expect(bearer.body.message).toBe('the credentials are not valid');
  });

  it('answers a request without credentials with both challenges', async () => {
    const res = await request(app).post('/invoke').expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'no credentials were sent' });
    expect(res.headers['www-authenticate']).toBe(`${API_KEY_CHALLENGE}, Bearer realm="authlayer"`);
  });

  it('sends a JWS-shaped value to jwt, whose refusal stands (a forged signature)', async () => {
    const [header, payload] = (await token({})).split('.');
    const res = await request(app).post('/invoke').set('Authorization', `Bearer ${header}.${payload}.AAAA`).expect(401);
    expect(res.body.message).toBe('the token signature is invalid');
  });

  it('sends an unsigned alg:none token to jwt, which refuses it with its own reason', async () => {
    const unsigned = forgeToken({ alg: 'none', typ: 'JWT' }, { sub: 'u-1', exp: NOW + 60 });
    const res = await request(app).post('/invoke').set('Authorization', `Bearer ${unsigned}`).expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the token algorithm is not allowed' });
    expect(res.headers['www-authenticate']).toBe(
      `Bearer realm="authlayer", error="invalid_token", error_description="the token algorithm is not allowed", ${API_KEY_CHALLENGE}`,
    );
  });

  it('guards the route whichever mode authenticated', async () => {
    await request(app).post('/guarded').set('X-API-Key', KEY).expect(403);
    await request(app)
      .post('/guarded')
      .set('Authorization', `Bearer ${await token({ roles: ['caller'] })}`)
      .expect(200);
  });

  it('composes describe() and readiness() of both handlers', () => {
    expect(Object.keys(auth.describe())).toEqual(['api_key', 'jwt']);
    expect(auth.readiness()).toEqual({ ready: true });
  });
});

describe('auth.mode: [jwt, api_key] without allow_bearer', () => {
  it('sends every other Bearer value to jwt, the header to api_key, and refuses a configured key as Bearer', async () => {
    const both = await createAuthMiddleware(
      {
        auth: {
          mode: ['jwt', 'api_key'],
          api_keys: { allow_bearer: false },
          jwt: { public_key_env: 'JWT_PUBLIC_KEY' },
        },
      },
      {
        env: { SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue },
        logger: createCaptureLogger(),
        now: () => NOW * 1000,
      },
    );
    const only = express().get('/', both, (req, res) => res.json(req.auth?.method));
    // The key is api_key's own credential in the wrong place: api_key refuses it, jwt never sees it.
    const res = await request(only).get('/').set('Authorization', `Bearer ${KEY}`).expect(401);
    expect(res.body.message).toBe('the credentials are not valid');
    expect(res.headers['www-authenticate']).toBe(`${API_KEY_CHALLENGE}, Bearer realm="authlayer"`);
    const other = await request(only).get('/').set('Authorization', 'Bearer not-a-key').expect(401);
    expect(other.body.message).toBe('the token is malformed');
    await request(only).get('/').set('X-API-Key', KEY).expect(200, '"api_key"');
    const none = await request(only).get('/').expect(401);
    expect(none.headers['www-authenticate']).toBe(`Bearer realm="authlayer", ${API_KEY_CHALLENGE}`);
  });
});

describe('auth.mode: [api_key, jwt] with jwt.cookie', () => {
  it('takes the token from the cookie, as jwt mode alone does', async () => {
    const both = await createAuthMiddleware(
      { auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'JWT_PUBLIC_KEY', cookie: 'access_token' } } },
      {
        env: { SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue },
        logger: createCaptureLogger(),
        now: () => NOW * 1000,
      },
    );
    const only = express().get('/', both, (req, res) => res.json(req.auth?.method));
    const jwt = await token({});
    await request(only).get('/').set('Cookie', `theme=dark; access_token=${jwt}`).expect(200, '"jwt"');
    // The API key header is sent on purpose; a cookie comes with every request of a browser.
    await request(only).get('/').set('Cookie', `access_token=${jwt}`).set('X-API-Key', KEY).expect(200, '"api_key"');
    const expired = await request(only)
      .get('/')
      .set('Cookie', `access_token=${await token({ exp: NOW - 3600 })}`)
      .expect(401);
    expect(expired.body.message).toBe('the token has expired');
  });
});

describe('decisions with several modes (onDecision)', () => {
  it('name the mode the credential went to, allowed or refused', async () => {
    const decisions: { outcome: string; method: string; reason: string | null }[] = [];
    const both = await createAuthMiddleware(
      { auth: { mode: ['api_key', 'jwt'], jwt: { public_key_env: 'JWT_PUBLIC_KEY', leeway_seconds: 0 } } },
      {
        env: { SERVICE_API_KEY: KEY, JWT_PUBLIC_KEY: signing.envValue },
        logger: createCaptureLogger(),
        now: () => NOW * 1000,
        onDecision: ({ outcome, method, reason }) => decisions.push({ outcome, method, reason }),
      },
    );
    const server = express()
      .get('/', both, (_req, res) => res.end())
      .get('/me', both.optional, (_req, res) => res.end());
    await request(server)
      .get('/')
      .set('Authorization', `Bearer ${await token({})}`)
      .expect(200);
    await request(server)
      .get('/')
      .set('Authorization', `Bearer ${await token({ exp: NOW - 1 })}`)
      .expect(401);
    await request(server).get('/').set('X-API-Key', 'wrong').expect(401);
    await request(server)
      .get('/')
      .set('Authorization', `Bearer ${forgeToken({ alg: 'none' }, { sub: 'u-1' })}`)
      .expect(401);
    await request(server).get('/me').expect(200);
    expect(decisions).toEqual([
      { outcome: 'allowed', method: 'jwt', reason: null },
      { outcome: 'refused', method: 'jwt', reason: 'token_expired' },
      { outcome: 'refused', method: 'api_key', reason: 'credentials_invalid' },
      { outcome: 'refused', method: 'jwt', reason: 'algorithm_not_allowed' },
      { outcome: 'allowed', method: 'none', reason: null },
    ]);
  });
});
