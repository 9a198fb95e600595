import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  createCaptureLogger,
  createDpopKey,
  OIDC_RESOURCE,
  startOidcProvider,
  startRedis,
  type DpopKey,
  type OidcProvider,
  type RedisServer,
} from '@authlayer/testkit';
import express from 'express';
import request from 'supertest';
import { createAuthMiddleware, type AuthMiddleware } from '../src/index.js';

// The DPoP replay cache shared through revocation.store: two replicas behind one public origin
// (resource.identifier), one real redis-server; a proof accepted by one is a replay at the other.
const PUBLIC = 'https://api.example.com';
let redis: RedisServer;
let provider: OidcProvider;
let client: DpopKey;
let token: string;
const replicas: { app: express.Express; auth: AuthMiddleware }[] = [];

beforeAll(async () => {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  [redis, provider] = await Promise.all([startRedis(), startOidcProvider('ES256', 'replicas-k1')]);
  warn.mockRestore();
  client = await createDpopKey();
  token = await provider.obtainBoundToken({ dpop: client });
  // Two replicas sharing the store, and a third without it (its own memory only).
  for (const store of [redis.url, redis.url, null]) {
    const auth = await createAuthMiddleware(
      {
        auth: {
          mode: 'jwt',
          jwt: {
            issuer: provider.issuer,
            jwks_url: provider.jwksUri,
            audience: OIDC_RESOURCE,
            algorithms: ['ES256'],
            dpop: 'required',
            dpop_algorithms: ['ES256'],
          },
        },
        resource: { identifier: PUBLIC },
        ...(store === null ? {} : { revocation: { store } }),
      },
      { logger: createCaptureLogger() },
    );
    replicas.push({ app: express().get('/invoke', auth, (req, res) => res.json(req.auth)), auth });
  }
});
afterAll(async () => {
  await Promise.all(replicas.map(({ auth }) => auth.close()));
  await Promise.all([redis.stop(), provider.close()]);
});

const send = (index: number, proof: string) =>
  request(replicas[index]!.app).get('/invoke').set('Authorization', `DPoP ${token}`).set('DPoP', proof);

describe('DPoP replay cache shared through revocation.store', () => {
  it('a proof accepted by one replica is refused by the other, and each new proof is accepted by either', async () => {
    const proof = await client.proof({ method: 'GET', url: `${PUBLIC}/invoke`, token });
    await send(0, proof).expect(200);
    const replayed = await send(1, proof).expect(401);
    expect(replayed.headers['www-authenticate']).toMatch(
      /^DPoP realm="authlayer", algs="ES256", error="invalid_dpop_proof"/,
    );
    await send(0, proof).expect(401);
    // Only the shared cache knew it: the replica without revocation.store takes the replay.
    await send(2, proof).expect(200);
    for (const index of [1, 0, 1])
      await send(index, await client.proof({ method: 'GET', url: `${PUBLIC}/invoke`, token })).expect(200);
  });
});
