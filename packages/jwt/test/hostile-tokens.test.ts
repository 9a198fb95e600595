import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isAuthError, type AuthHandler } from '@authlayer/core';
import {
  createSigningKey,
  forgeToken,
  mintToken,
  signRaw,
  startJwksServer,
  startRecordingServer,
  type JwksServer,
  type RecordingServer,
  type SigningKey,
} from '@authlayer/testkit';
import { bearer, failure, jwksHandler, staticHandler, validClaims } from './fixtures.js';
import { hostileClaims, hostileCorpus, type HostileContext } from './hostile-corpus.js';

// RFC 8725 (JWT Best Current Practices) is the checklist: every token here must be refused with
// a 401, and the handler must go on accepting good tokens afterwards.
const ISSUER = 'https://idp.example';

let key: SigningKey;
let attackerKey: SigningKey;
let jwks: JwksServer;
let attacker: RecordingServer;
let handler: AuthHandler;
let good: string;
const context = {} as HostileContext;
const corpus = hostileCorpus(context);

beforeAll(async () => {
  [key, attackerKey] = await Promise.all([createSigningKey('RS256'), createSigningKey('RS256')]);
  [jwks, attacker] = await Promise.all([startJwksServer([key.publicJwk]), startRecordingServer()]);
  ({ handler } = await jwksHandler(jwks.url, { issuer: ISSUER, audience: 'api', algorithms: ['RS256'] }));
  good = await mintToken(key, hostileClaims());
  Object.assign(context, { key, attackerKey, good, attackerOrigin: attacker.origin });
});
afterAll(async () => {
  await Promise.all([jwks.close(), attacker.close()]);
});

describe('hostile tokens against a jwks_url handler (RS256)', () => {
  it.each(corpus)('refuses $name with $reason, and still accepts good tokens', async ({ make, reason }) => {
    await expect(handler.authenticate(bearer(await make()))).rejects.toMatchObject(failure(reason));
    expect(await handler.authenticate(bearer(good))).toMatchObject({ method: 'jwt', userId: 'user-1' });
  });

  it('refuses every one-character change of a good token with an AuthError, and nothing else', async () => {
    // The last character of a segment may carry only padding bits, so changing it can decode to
    // the same bytes; every other position changes the token's meaning.
    const positions = [...good].flatMap((c, i) => (c !== '.' && i + 1 < good.length && good[i + 1] !== '.' ? [i] : []));
    const sampled = positions.filter((_, n) => n % 3 === 0);
    const outcomes = await Promise.all(
      sampled.map((i) => {
        const changed = `${good.slice(0, i)}${good[i] === 'A' ? 'B' : 'A'}${good.slice(i + 1)}`;
        return handler.authenticate(bearer(changed)).then(
          () => 'accepted',
          (error: unknown) => (isAuthError(error) ? error.reason : 'not an AuthError'),
        );
      }),
    );
    expect(sampled.length).toBeGreaterThan(100);
    expect(outcomes.filter((outcome) => outcome === 'accepted' || outcome === 'not an AuthError')).toEqual([]);
    expect(outcomes).toContain('signature_invalid');
  });

  it('never fetched anything from the attacker, and fetched its own key set only within the cool-down', () => {
    // Only the paths the corpus points at (`/jku.json`, `/x5c`, ...) count: the server listens
    // on a loopback port another suite's process may have just left and still probe (`GET /healthz`).
    expect(attacker.requests.filter((request) => /(\.json|\/x5c)$/.test(request))).toEqual([]);
    expect(jwks.hits).toBeLessThanOrEqual(2);
  });
});

describe('HMAC never with an asymmetric key, nor the reverse', () => {
  it('refuses an RS256 token at an HS256 handler, and alg none too', async () => {
    const secret = await createSigningKey('HS256');
    const { handler: hmac, token } = await staticHandler(secret);
    await expect(hmac.authenticate(bearer(good))).rejects.toMatchObject(failure('algorithm_not_allowed'));
    await expect(hmac.authenticate(bearer(forgeToken({ alg: 'none' }, validClaims())))).rejects.toMatchObject(
      failure('algorithm_not_allowed'),
    );
    expect(await hmac.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
  });

  it('refuses HS256 keyed with the PEM at a public_key_env RS256 handler', async () => {
    const { handler: rsa, token } = await staticHandler(key);
    const forged = await signRaw(new TextEncoder().encode(key.envValue), { alg: 'HS256' }, validClaims());
    await expect(rsa.authenticate(bearer(forged))).rejects.toMatchObject(failure('algorithm_not_allowed'));
    expect(await rsa.authenticate(bearer(await token()))).toMatchObject({ userId: 'user-1' });
  });
});
