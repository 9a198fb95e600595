import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createSigningKey,
  forgeToken,
  mintToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '@authlayer/testkit';
import type { Engine } from '../src/engine.js';
import { decide, type EngineRequest } from '../src/request/decide.js';
import { RequestScope } from '../src/request/scope.js';
import { engineAt, judge, T } from './support/engine-at.js';

// decide's rate-limited path with a handler that answers later (JWT against a real key set on a
// loopback server) and with anonymous callers: what counts as a failed guess, who a request is
// counted as, and which headers go with each answer.

let key: SigningKey;
let jwks: JwksServer;
beforeAll(async () => {
  key = await createSigningKey('RS256');
  jwks = await startJwksServer([key.publicJwk]);
});
afterAll(() => jwks.close());

let open: Engine[] = [];
afterEach(async () => {
  jwks.setMode('ok');
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});

async function limited(rate_limit: Record<string, unknown>) {
  const made = await engineAt({
    auth: { mode: 'jwt', jwt: { jwks_url: jwks.url, audience: 'api' } },
    rate_limit,
    access: { 'GET /feed': 'optional', 'GET /me': 'authenticated' },
  });
  open.push(made.engine);
  const send = async (path: string, headers: Record<string, string> = {}, address = '192.0.2.7') => {
    const request = { method: 'GET', url: path, headers, socket: { remoteAddress: address } } as EngineRequest;
    return (await judge(made.engine.current(), request)).outcome!;
  };
  return { ...made, send };
}

const status = (outcome: Awaited<ReturnType<Awaited<ReturnType<typeof limited>>['send']>>) =>
  outcome.pass ? 200 : outcome.answer.status;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tokenOf = (sub: string) => mintToken(key, { sub, aud: 'api', iat: T / 1000, exp: T / 1000 + 300 });

describe('decide with rate limits and a handler that answers later', () => {
  it("a verified token counts against its user's limit, with RateLimit headers, then 429", async () => {
    const { send, decisions } = await limited({ requests_per_minute: 1 });
    const ada = bearer(await tokenOf('ada'));
    const first = await send('/me', ada);
    expect(first).toMatchObject({ pass: true, context: { userId: 'ada' } });
    expect(first.headers.map(([name]) => name)).toEqual(['RateLimit-Policy', 'RateLimit']);
    expect(status(await send('/me', ada))).toBe(429);
    // Another user, from the same address, has a limit of its own.
    expect(status(await send('/me', bearer(await tokenOf('grace'))))).toBe(200);
    expect(decisions.filter((d) => d.outcome === 'rate_limited').map((d) => [d.reason, d.userId])).toEqual([
      ['too_many_requests', 'ada'],
    ]);
  });

  it('only a failed-guess limit: a pass carries no RateLimit headers', async () => {
    const { send } = await limited({ failed_auth_per_minute: 5 });
    expect(await send('/me', bearer(await tokenOf('ada')))).toMatchObject({ pass: true, headers: [] });
  });

  it("a key set that cannot be fetched is the provider's failure, not a guess: the address's budget is kept", async () => {
    const { send, decisions, clock } = await limited({ failed_auth_per_minute: 1 });
    jwks.setMode('fail');
    const token = bearer(await tokenOf('ada'));
    expect(status(await send('/me', token))).toBe(401);
    expect(status(await send('/me', token))).toBe(401);
    // With a budget of one guess, a second that counted would have been a 429.
    expect(decisions.map((d) => d.reason)).toEqual(['key_unavailable', 'key_unavailable']);
    jwks.setMode('ok');
    clock.now += 10 * 60_000;
    // Once the key set answers (fetched again after its wait), a forged token is a guess: the one allowed, then 429 before it is even checked.
    const forged = bearer(forgeToken({ alg: 'RS256', kid: key.kid }, { sub: 'ada', aud: 'api' }, 'c2ln'));
    expect(status(await send('/me', forged))).toBe(401);
    expect(status(await send('/me', forged))).toBe(429);
    expect(decisions.map((d) => d.reason).slice(2)).toEqual(['signature_invalid', 'too_many_failures']);
  });

  it('anonymous callers of an optional route are counted by their address', async () => {
    const { send, decisions } = await limited({ requests_per_minute: 1 });
    expect(await send('/feed')).toMatchObject({ pass: true, context: { method: 'none' } });
    expect(status(await send('/feed'))).toBe(429);
    expect(status(await send('/feed', {}, '198.51.100.9'))).toBe(200);
    expect(decisions.filter((d) => d.outcome === 'rate_limited')).toEqual([
      expect.objectContaining({ reason: 'too_many_requests', userId: null }),
    ]);
  });

  it('a handler that fails with something else than an AuthError under limits: 500, and no guess counted', async () => {
    const { engine, decisions } = await limited({ failed_auth_per_minute: 1 });
    const flow = { ...engine.current().auth, authenticate: () => Promise.reject(new TypeError('boom')) };
    for (let i = 0; i < 2; i += 1) {
      const outcome = await decide(
        flow,
        { method: 'GET', url: '/me', headers: {} } as EngineRequest,
        new RequestScope(() => 'r'),
      );
      expect(outcome).toMatchObject({ pass: false, answer: { status: 500 } });
    }
    expect(decisions.map((d) => d.reason)).toEqual(['handler_failed', 'handler_failed']);
  });
});
