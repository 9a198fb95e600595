import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { HandlerObserver } from '@authlayer/core';
import {
  createCaptureLogger,
  createSigningKey,
  mintToken,
  startJwksServer,
  startLoopbackServer,
  type SigningKey,
} from '@authlayer/testkit';
import { createJwtHandler } from '../src/index.js';
import { bearer, jwtConfig, now, validClaims } from './fixtures.js';

// deps.observe: the counters behind the service's authlayer_key_fetches_total and
// authlayer_token_cache_total, moved once where the thing happens.
let key: SigningKey;
const closers: (() => Promise<void>)[] = [];
beforeAll(async () => {
  key = await createSigningKey('ES256');
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
});

function recorder() {
  const seen: string[] = [];
  const observe: HandlerObserver = {
    keyFetch: (result) => void seen.push(`keyFetch ${result}`),
    tokenCache: (result) => void seen.push(`tokenCache ${result}`),
  };
  return { seen, observe };
}

const handlerFor = (url: string, observe?: HandlerObserver) =>
  createJwtHandler(jwtConfig({ jwks_url: url, algorithms: ['ES256'] }), {
    env: {},
    logger: createCaptureLogger(),
    now,
    jwks: { timeoutMs: 2000 },
    ...(observe === undefined ? {} : { observe }),
  });

describe('deps.observe', () => {
  it('sees each key set fetch (not each lookup) and each cache lookup', async () => {
    const jwks = await startJwksServer([key.publicJwk]);
    closers.push(() => jwks.close());
    const { seen, observe } = recorder();
    const handler = await handlerFor(jwks.url, observe);
    const token = await mintToken(key, validClaims());
    for (let i = 0; i < 3; i++) await handler.authenticate(bearer(token));
    expect(seen).toEqual(['tokenCache miss', 'keyFetch ok', 'tokenCache miss', 'tokenCache hit']);
  });

  it('counts an answer other than 200, and no answer at all, as an error', async () => {
    const jwks = await startJwksServer([key.publicJwk]);
    closers.push(() => jwks.close());
    jwks.setMode('fail');
    const failing = recorder();
    await expect(
      (await handlerFor(jwks.url, failing.observe)).authenticate(bearer(await mintToken(key, validClaims()))),
    ).rejects.toMatchObject({
      reason: 'key_unavailable',
    });
    const closed = await startLoopbackServer((req) => req.socket.destroy());
    closers.push(() => closed.close());
    const refused = recorder();
    await expect(
      (await handlerFor(`${closed.origin}/jwks`, refused.observe)).authenticate(
        bearer(await mintToken(key, validClaims())),
      ),
    ).rejects.toMatchObject({
      reason: 'key_unavailable',
    });
    expect([failing.seen, refused.seen]).toEqual([
      ['tokenCache miss', 'keyFetch error'],
      ['tokenCache miss', 'keyFetch error'],
    ]);
  });

  it('is optional', async () => {
    const jwks = await startJwksServer([key.publicJwk]);
    closers.push(() => jwks.close());
    const handler = await handlerFor(jwks.url);
    await expect(handler.authenticate(bearer(await mintToken(key, validClaims())))).resolves.toMatchObject({
      userId: 'user-1',
    });
  });
});
