import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseAuthConfig } from '@authlayer/core';
import { createCaptureLogger, startLoopbackServer, type LoopbackServer } from '@authlayer/testkit';
import type { ServerResponse } from 'node:http';
import { createOAuth2Handler, type OAuth2HandlerDeps } from '../src/oauth2-handler.js';

// Issue: 2 000 distinct garbage tokens → 2 000 introspections, 201 at once at the provider; the
// same inactive token 50 times → 50 calls; failing discovery metadata fetched on every request.
const SECRET = 'introspection-client-secret';
const NOW = 1_800_000_000_000;

/** A loopback introspection endpoint that counts what it gets; `hold` keeps answers until released. */
interface Endpoint {
  readonly server: LoopbackServer;
  requests: number;
  inFlight: number;
  maxInFlight: number;
  metadataHits: number;
  metadata: Record<string, unknown>;
  answer: Record<string, unknown>;
  hold: boolean;
  readonly held: (() => void)[];
  onHeld: (() => void) | null;
}

let endpoint: Endpoint;
beforeAll(async () => {
  const state = {
    requests: 0,
    inFlight: 0,
    maxInFlight: 0,
    metadataHits: 0,
    metadata: {},
    answer: { active: false },
    hold: false,
    held: [],
    onHeld: null,
  } as Omit<Endpoint, 'server'>;
  const reply = (response: ServerResponse, body: unknown) => {
    state.inFlight--;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = await startLoopbackServer((request, response) => {
    request.resume();
    if (request.url === '/.well-known/openid-configuration') {
      state.metadataHits++;
      return void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(state.metadata));
    }
    state.requests++;
    state.maxInFlight = Math.max(state.maxInFlight, ++state.inFlight);
    const answer = state.answer;
    if (state.hold) {
      state.held.push(() => reply(response, answer));
      return state.onHeld?.();
    }
    setImmediate(() => reply(response, answer));
  });
  endpoint = Object.assign(state, { server });
});
afterAll(() => endpoint.server.close());

function reset(fields: Partial<Endpoint> = {}) {
  Object.assign(endpoint, { requests: 0, maxInFlight: 0, metadataHits: 0, answer: { active: false }, hold: false });
  Object.assign(endpoint, fields);
}

async function handlerWith(oauth2: Record<string, unknown> = {}, limits: OAuth2HandlerDeps['limits'] = {}) {
  const clock = { now: NOW };
  const logger = createCaptureLogger();
  const config = parseAuthConfig({
    auth: {
      mode: 'oauth2',
      oauth2: { introspection_url: `${endpoint.server.origin}/introspect`, client_id: 'api', ...oauth2 },
    },
  });
  const handler = await createOAuth2Handler(config, {
    env: { OAUTH2_CLIENT_SECRET: SECRET },
    logger,
    now: () => clock.now,
    limits,
  });
  const authenticate = (token: string) => handler.authenticate({ headers: { authorization: `Bearer ${token}` } });
  return { authenticate, clock, logger };
}

const reasonOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'accepted',
    (error: { reason: string }) => error.reason,
  );

describe('introspection: a bound on concurrent requests to the provider', () => {
  it('200 distinct tokens at once: at most 32 (the default) in flight at the provider, each asked once', async () => {
    // Answers are held until 32 requests wait at the provider (or all that are left), then released.
    let released = 0;
    reset({ hold: true });
    endpoint.onHeld = () => {
      if (endpoint.held.length < Math.min(32, 200 - released)) return;
      released += endpoint.held.length;
      endpoint.held.splice(0).forEach((release) => release());
    };
    const { authenticate } = await handlerWith();
    const reasons = await Promise.all(Array.from({ length: 200 }, (_, i) => reasonOf(authenticate(`garbage-${i}`))));
    endpoint.onHeld = null;
    expect(new Set(reasons)).toEqual(new Set(['credentials_invalid']));
    expect(endpoint.requests).toBe(200);
    expect(endpoint.maxInFlight).toBe(32);
  });

  it('maxConcurrent 4: never more than 4 in flight', async () => {
    reset();
    const { authenticate } = await handlerWith({}, { maxConcurrent: 4 });
    await Promise.all(Array.from({ length: 50 }, (_, i) => reasonOf(authenticate(`other-${i}`))));
    expect(endpoint.maxInFlight).toBe(4);
  });

  it('a request whose turn does not come within the wait gets key_unavailable; one warning; health unchanged', async () => {
    reset({ hold: true });
    const { authenticate, logger } = await handlerWith({}, { maxConcurrent: 1, maxWaitMs: 20 });
    const heldOnce = new Promise<void>((resolve) => (endpoint.onHeld = resolve));
    const first = reasonOf(authenticate('slow-1'));
    await heldOnce;
    expect(await reasonOf(authenticate('slow-2'))).toBe('key_unavailable');
    expect(await reasonOf(authenticate('slow-3'))).toBe('key_unavailable');
    endpoint.held.splice(0).forEach((release) => release());
    expect(await first).toBe('credentials_invalid');
    expect(endpoint.requests).toBe(1);
    expect(logger.text).toEqual([
      'warn: auth.oauth2: 1 introspections in flight; requests that waited past timeout_ms are refused',
    ]);
    endpoint.onHeld = null;
  });

  it('rejects a maxConcurrent that is not a positive integer', async () => {
    await expect(handlerWith({}, { maxConcurrent: 0 })).rejects.toThrow(TypeError);
  });
});

describe('introspection: a short cache of lasting refusals, keyed by the digest', () => {
  it('the same inactive token 50 times costs one introspection for 10 s, then it is asked again', async () => {
    reset();
    const { authenticate, clock } = await handlerWith();
    for (let i = 0; i < 50; i++) expect(await reasonOf(authenticate('inactive-token'))).toBe('credentials_invalid');
    expect(endpoint.requests).toBe(1);
    clock.now += 9_999;
    expect(await reasonOf(authenticate('inactive-token'))).toBe('credentials_invalid');
    expect(endpoint.requests).toBe(1);
    clock.now += 1;
    expect(await reasonOf(authenticate('inactive-token'))).toBe('credentials_invalid');
    expect(endpoint.requests).toBe(2);
  });

  it('keeps expired and wrong-audience answers too, never a not-yet-valid one', async () => {
    reset({ answer: { active: true, exp: NOW / 1000 - 1 } });
    const { authenticate } = await handlerWith({ audience: 'api' });
    for (let i = 0; i < 3; i++) expect(await reasonOf(authenticate('expired'))).toBe('token_expired');
    endpoint.answer = { active: true, aud: 'other' };
    for (let i = 0; i < 3; i++) expect(await reasonOf(authenticate('elsewhere'))).toBe('audience_mismatch');
    endpoint.answer = { active: true, aud: 'api', nbf: NOW / 1000 + 60 };
    for (let i = 0; i < 3; i++) expect(await reasonOf(authenticate('early'))).toBe('token_not_yet_valid');
    expect(endpoint.requests).toBe(1 + 1 + 3);
  });

  it('is never longer than cache_seconds (cache_seconds 5 → 5 s)', async () => {
    reset();
    const { authenticate, clock } = await handlerWith({ cache_seconds: 5 });
    await reasonOf(authenticate('inactive'));
    clock.now += 5_000;
    await reasonOf(authenticate('inactive'));
    expect(endpoint.requests).toBe(2);
  });
});

describe('discovery: a cool-down after metadata that cannot be used', () => {
  it('100 requests during a bad document fetch it once; again after 30 s, and it is used once good', async () => {
    const issuer = endpoint.server.origin;
    reset({ metadata: { issuer: 'https://elsewhere.example', introspection_endpoint: `${issuer}/introspect` } });
    const { authenticate, clock } = await handlerWith({ introspection_url: null, discovery: true, issuer });
    for (let i = 0; i < 100; i++) expect(await reasonOf(authenticate(`t-${i}`))).toBe('key_unavailable');
    expect(endpoint.metadataHits).toBe(1);
    endpoint.metadata = { issuer, introspection_endpoint: `${issuer}/introspect` };
    clock.now += 29_999;
    expect(await reasonOf(authenticate('t-again'))).toBe('key_unavailable');
    expect(endpoint.metadataHits).toBe(1);
    clock.now += 1;
    expect(await reasonOf(authenticate('t-again'))).toBe('credentials_invalid');
    expect(endpoint.metadataHits).toBe(2);
    expect(endpoint.requests).toBe(1);
  });
});
