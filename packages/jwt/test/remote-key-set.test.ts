import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createSigningKey,
  mintToken,
  startJwksServer,
  startLoopbackServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import { exportJWK, generateKeyPair } from 'jose';
import { bearer, createClock, failure, jwksHandler, validClaims } from './fixtures.js';

const UNREADABLE = 'warn';
let key: SigningKey;
const servers: JwksServer[] = [];
const serve = async (keys: SigningKey[]) => {
  const server = await startJwksServer(keys.map((k) => k.publicJwk));
  servers.push(server);
  return server;
};
const sign = (k: SigningKey, header: Record<string, unknown> = {}) => mintToken(k, validClaims(), header);

beforeAll(async () => {
  key = await createSigningKey('ES256');
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe('caching', () => {
  it('fetches the key set once for many requests, also concurrent ones', async () => {
    const jwks = await serve([key]);
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] });
    expect(jwks.hits).toBe(0); // nothing is fetched at start-up
    const token = await sign(key);
    await Promise.all(Array.from({ length: 20 }, () => handler.authenticate(bearer(token))));
    for (let i = 0; i < 20; i += 1)
      expect(await handler.authenticate(bearer(token))).toMatchObject({ userId: 'user-1' });
    expect(jwks.hits).toBe(1);
  });

  it('refetches a stale key set after cacheMaxAgeMs', async () => {
    const jwks = await serve([key]);
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] }, { cacheMaxAgeMs: 0, timeoutMs: 1000 });
    await handler.authenticate(bearer(await sign(key)));
    await handler.authenticate(bearer(await sign(key)));
    expect(jwks.hits).toBe(2);
  });
});

describe('unknown kids', () => {
  it('costs the provider at most one fetch per cool-down, however many random kids arrive', async () => {
    const jwks = await serve([key]);
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] });
    const tokens = await Promise.all(Array.from({ length: 1000 }, () => sign(key, { kid: randomUUID() })));
    const results = await Promise.allSettled(tokens.map((token) => handler.authenticate(bearer(token))));
    const reasons = results.map((r) =>
      r.status === 'rejected' ? (r.reason as { reason: string }).reason : 'accepted',
    );
    expect([...new Set(reasons)]).toEqual(['signature_invalid']);
    expect(jwks.hits).toBeLessThanOrEqual(2);
    expect(await handler.authenticate(bearer(await sign(key)))).toMatchObject({ userId: 'user-1' });
    expect(jwks.hits).toBeLessThanOrEqual(2);
  });

  it('finds a rotated key without a restart once the cool-down allows a refetch', async () => {
    const next = await createSigningKey('ES256');
    const jwks = await serve([key]);
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] }, { cooldownMs: 0, timeoutMs: 1000 });
    await handler.authenticate(bearer(await sign(key)));
    jwks.setKeys([next.publicJwk]);
    expect(await handler.authenticate(bearer(await sign(next)))).toMatchObject({ userId: 'user-1' });
    expect(jwks.hits).toBe(2);
    // The old key is gone from the set: its tokens now fail.
    await expect(handler.authenticate(bearer(await sign(key)))).rejects.toMatchObject(failure('signature_invalid'));
  });

  it('lets a request that arrives during a refetch wait for it, then serves it from the set it still has', async () => {
    const jwks = await serve([key]);
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] }, { cooldownMs: 0, timeoutMs: 200 });
    await handler.authenticate(bearer(await sign(key)));
    jwks.setMode('hang');
    const unknown = handler.authenticate(bearer(await sign(key, { kid: randomUUID() })));
    // The refetch for the unknown kid has reached the provider (which will not answer) before the next request.
    while (jwks.hits < 2) await new Promise((resolve) => setImmediate(resolve));
    const known = handler.authenticate(bearer(await sign(key)));
    await expect(unknown).rejects.toMatchObject(failure('signature_invalid'));
    await expect(known).resolves.toMatchObject({ userId: 'user-1' });
    expect(jwks.hits).toBe(2);
  });
});

describe('a provider that is down, slow or confused', () => {
  it('answers key_unavailable while the key set answers 500, retries once per cool-down, and recovers without a restart', async () => {
    const jwks = await serve([key]);
    jwks.setMode('fail');
    const clock = createClock();
    const { handler, logger } = await jwksHandler(
      jwks.url,
      { algorithms: ['ES256'] },
      { timeoutMs: 2000, cooldownMs: 30_000 },
      clock.now,
    );
    const token = await sign(key);
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('key_unavailable'));
    jwks.setMode('ok');
    clock.advance(29);
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('key_unavailable'));
    expect(jwks.hits).toBe(1);
    clock.advance(1);
    expect(await handler.authenticate(bearer(token))).toMatchObject({ userId: 'user-1' });
    expect(jwks.hits).toBe(2);
    expect(logger.lines).toEqual([
      {
        level: UNREADABLE,
        message: 'auth.jwt.jwks_url: the key set cannot be read (not a 200); tokens are refused until it can',
      },
      { level: 'info', message: 'auth.jwt.jwks_url: the key set can be read again' },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain(token.slice(0, 20));
  });

  it('answers key_unavailable when nothing listens at jwks_url', async () => {
    const gone = await startLoopbackServer(() => undefined);
    await gone.close();
    const { handler, logger } = await jwksHandler(`${gone.origin}/jwks`, { algorithms: ['ES256'] });
    await expect(handler.authenticate(bearer(await sign(key)))).rejects.toMatchObject(failure('key_unavailable'));
    expect(logger.lines[0]?.message).toContain('(unreachable)');
  });

  it('bounds the time a hanging provider costs a request, then recovers', async () => {
    const jwks = await serve([key]);
    jwks.setMode('hang');
    const clock = createClock();
    // 1 s: short enough to show the bound, long enough that the recovery fetch never times out on
    // a loaded machine (200 ms did, once, at load average 11).
    const { handler, logger } = await jwksHandler(jwks.url, { algorithms: ['ES256'] }, { timeoutMs: 1000 }, clock.now);
    const token = await sign(key);
    // No clock: the provider never answers, so an answer at all (and its cause, "timed out") shows
    // the timeout ended the wait. Without one the request would wait until jest's timeout.
    await expect(handler.authenticate(bearer(token))).rejects.toMatchObject(failure('key_unavailable'));
    expect(logger.lines[0]?.message).toContain('(timed out)');
    jwks.setMode('ok');
    clock.advance(30);
    expect(await handler.authenticate(bearer(token))).toMatchObject({ userId: 'user-1' });
  });

  it.each([
    ['garbage', 'not a JSON object'],
    ['not-a-key-set', 'the answer is not a valid key set'],
  ] as const)('answers key_unavailable, not a 500, for %s', async (mode, cause) => {
    const jwks = await serve([key]);
    jwks.setMode(mode);
    const { handler, logger } = await jwksHandler(jwks.url, { algorithms: ['ES256'] });
    await expect(handler.authenticate(bearer(await sign(key)))).rejects.toMatchObject(failure('key_unavailable'));
    expect(logger.lines).toEqual([{ level: UNREADABLE, message: expect.stringContaining(`(${cause})`) }]);
  });
});

describe('a key set that publishes a private key', () => {
  it('is not a valid key set: key_unavailable, never a verification with it', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const jwks = await startJwksServer([{ ...(await exportJWK(privateKey)), kid: key.kid, alg: 'ES256' }]);
    servers.push(jwks);
    const { handler, logger } = await jwksHandler(jwks.url, { algorithms: ['ES256'] });
    await expect(handler.authenticate(bearer(await sign(key)))).rejects.toMatchObject(failure('key_unavailable'));
    expect(logger.lines[0]?.message).toContain('(the answer is not a valid key set)');
  });
});

describe('several keys that fit a token without kid', () => {
  let noKid: SigningKey[];
  beforeAll(async () => {
    noKid = await Promise.all(Array.from({ length: 5 }, () => createSigningKey('ES256', { kid: null })));
  });

  it('tries each candidate until one verifies', async () => {
    const jwks = await serve(noKid.slice(0, 3));
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] });
    expect(await handler.authenticate(bearer(await sign(noKid[2] as SigningKey)))).toMatchObject({ userId: 'user-1' });
    const expired = await mintToken(noKid[0] as SigningKey, validClaims({ exp: 1 }));
    await expect(handler.authenticate(bearer(expired))).rejects.toMatchObject(failure('token_expired'));
    const stranger = await createSigningKey('ES256', { kid: null });
    await expect(handler.authenticate(bearer(await sign(stranger)))).rejects.toMatchObject(
      failure('signature_invalid'),
    );
  });

  it('tries no more than four', async () => {
    const jwks = await serve(noKid);
    const { handler } = await jwksHandler(jwks.url, { algorithms: ['ES256'] });
    await expect(handler.authenticate(bearer(await sign(noKid[4] as SigningKey)))).rejects.toMatchObject(
      failure('signature_invalid'),
    );
    expect(await handler.authenticate(bearer(await sign(noKid[3] as SigningKey)))).toMatchObject({ userId: 'user-1' });
  });
});
