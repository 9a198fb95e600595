import { beforeAll, describe, expect, it } from '@jest/globals';
import { createCaptureLogger, createSigningKey, mintToken, type SigningKey } from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware } from '../src/index.js';

// The library option isRevoked of createAuthMiddleware (contract: JWT with real identity providers).
const NOW = 1_800_000_000;
let key: SigningKey;
beforeAll(async () => {
  key = await createSigningKey('HS256');
});

async function appWith(
  isRevoked: (context: unknown, claims: Readonly<Record<string, unknown>>) => boolean | Promise<boolean>,
) {
  const config = { auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_SECRET', algorithms: ['HS256'] } } };
  const logger = createCaptureLogger();
  const auth = await createAuthMiddleware(config, {
    env: { JWT_SECRET: key.envValue },
    logger,
    now: () => NOW * 1000,
    isRevoked,
  });
  const app = express();
  app.get('/me', auth, (req, res) => res.json(req.auth));
  return { app, logger };
}

describe('createAuthMiddleware({ isRevoked })', () => {
  it('answers 401 token_revoked for a token revoked after it was cached, with the RFC 6750 challenge', async () => {
    const revoked = new Set<unknown>();
    const asked: unknown[] = [];
    const { app, logger } = await appWith(async (_context, claims) => {
      asked.push(claims.jti);
      return revoked.has(claims.jti);
    });
    const token = await mintToken(key, { sub: 'u-1', jti: 't-1', iat: NOW, exp: NOW + 300 });
    for (let i = 0; i < 3; i += 1) await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(200);
    revoked.add('t-1');
    const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`).expect(401);
    expect(res.body).toEqual({ error: 'unauthorized', message: 'the token has been revoked' });
    expect(res.headers['www-authenticate']).toBe(
      'Bearer realm="authlayer", error="invalid_token", error_description="the token has been revoked"',
    );
    expect(asked).toEqual(['t-1', 't-1', 't-1', 't-1']);
    expect(JSON.stringify([res.body, logger.lines])).not.toContain(token);
  });

  it('must be a function', async () => {
    await expect(createAuthMiddleware({ auth: { mode: 'api_key' } }, { isRevoked: 'yes' as never })).rejects.toThrow(
      new TypeError('createAuthMiddleware: options.isRevoked must be a function'),
    );
  });
});
