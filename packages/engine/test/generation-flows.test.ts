import { afterEach, describe, expect, it } from '@jest/globals';
import { AuthError, createAuthContext, type AuthRequest } from '@authlayer/core';
import { createSigningKey, mintToken } from '@authlayer/testkit';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine } from '../src/engine.js';
import type { PolicyDiff } from '../src/policy/candidate-judge.js';
import { ruleCheck } from '../src/request/guard.js';
import { RequestScope } from '../src/request/scope.js';
import { API_KEYS, engineAt, judge, KEYS, requestTo, T } from './support/engine-at.js';

// The flows a generation builds from its config, on a real engine: `scopes.implies` carried to the
// decision and to a guard after it, `access.candidate` beside a plan the adapter made, and the
// authentication of a route's `modes` when a listed package is missing or cannot be combined yet.

let open: Engine[] = [];
afterEach(async () => {
  await Promise.all(open.map((engine) => engine.close()));
  open = [];
});
async function made(config: Record<string, unknown>, setup: Parameters<typeof engineAt>[1] = {}) {
  const result = await engineAt(config, setup);
  open.push(result.engine);
  return result;
}
const notFound = (name: string) =>
  Promise.reject(Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' }));

describe('scopes.implies', () => {
  it('a broader scope grants the narrower one to the table and to a guard after the decision', async () => {
    const key = await createSigningKey('HS256');
    const { engine } = await made(
      {
        auth: { mode: 'jwt', jwt: { public_key_env: 'JWT_KEY', algorithms: ['HS256'], audience: 'api' } },
        scopes: { implies: { 'reports:admin': ['reports:read'] } },
        access: { 'GET /reports': { scopes: ['reports:read'] } },
      },
      { env: { JWT_KEY: key.envValue } },
    );
    const bearer = async (scope: string) => ({
      authorization: `Bearer ${await mintToken(key, { sub: 'ada', scope, aud: 'api', iat: T / 1000, exp: T / 1000 + 60 })}`,
    });
    const admin = await judge(engine.current(), requestTo('GET', '/reports', await bearer('reports:admin')));
    expect(admin.outcome).toMatchObject({ pass: true, context: { scopes: ['reports:admin'] } });
    const guard = ruleCheck({ scopes: ['reports:read'] });
    const context = createAuthContext({ method: 'jwt', userId: 'ada', scopes: ['reports:admin'] });
    expect(guard(context, requestTo('GET', '/reports'), admin.scope)).toBeNull();
    const other = await judge(engine.current(), requestTo('GET', '/reports', await bearer('profile')));
    expect(other.outcome).toMatchObject({ pass: false, answer: { status: 403 } });
  });
});

describe('access.candidate beside a plan the adapter made', () => {
  it('step with the request: the candidate judges it as access would, the live step stands', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'generation-flows-'));
    const candidate = join(dir, 'candidate.yaml');
    writeFileSync(candidate, '"GET /status": { roles: [admin] }\n');
    const diffs: PolicyDiff[] = [];
    const { engine } = await made(
      { access: { 'GET /status': 'public', candidate } },
      { onPolicyDiff: (diff) => void diffs.push(diff) },
    );
    const generation = engine.current();
    const request = requestTo('GET', '/status?verbose=1');
    const plan = generation.plan('GET', '/status', request);
    expect(generation.step(plan, new RequestScope(() => 'r-1'), request)).toEqual({ kind: 'public' });
    expect(diffs).toEqual([{ key: 'GET /status', live: 'allowed', candidate: 'credentials_missing' }]);
    // Without the request (an adapter that gives none), the candidate is not asked.
    generation.step(plan, new RequestScope(() => 'r-2'));
    expect(diffs).toHaveLength(1);
  });
});

describe("a route's modes", () => {
  const auth = { ...API_KEYS, mode: ['api_key', 'jwt'], jwt: { jwks_url: 'https://idp.example/jwks' } };

  it('a route of a mode whose package is missing: every credential is refused as none', async () => {
    const { engine, decisions } = await made(
      { auth, access: { 'GET /tokens': { roles: ['admin'], modes: ['jwt'] } } },
      { importModule: (name) => (name === '@authlayer/jwt' ? notFound(name) : import(name)) },
    );
    expect(engine.current().loaded.methods).toEqual(['api_key']);
    const { outcome } = await judge(engine.current(), requestTo('GET', '/tokens', { 'x-api-key': KEYS.admin }));
    expect(outcome).toMatchObject({
      pass: false,
      answer: { status: 401, headers: [['WWW-Authenticate', expect.stringMatching(/^Bearer realm="authlayer"/)]] },
    });
    expect(decisions).toMatchObject([{ outcome: 'refused', reason: 'credentials_missing', userId: null }]);
  });

  it('a subset that cannot be combined at its first request: that request fails closed, the next builds it again', async () => {
    // A mode package whose handler, for one moment, cannot say how it challenges (a request
    // without credentials throws instead of refusing), then can again.
    let failNext = false;
    const challenge = 'Signature realm="authlayer"';
    const sign = {
      section: 'sign',
      createHandler: () =>
        Promise.resolve({
          method: 'sign',
          authenticate: (request: AuthRequest) => {
            if (request.headers['x-signature'] === 'good')
              return Promise.resolve(createAuthContext({ method: 'sign' }));
            if (failNext) return ((failNext = false), Promise.reject(new TypeError('not ready')));
            return Promise.reject(new AuthError('credentials_missing', challenge));
          },
          recognize: (request: AuthRequest) => (request.headers['x-signature'] === undefined ? undefined : 'certain'),
        }),
    };
    const { engine, logger } = await made(
      {
        auth: { ...API_KEYS, mode: ['api_key', 'sign', 'jwt'], jwt: { jwks_url: 'https://idp.example/jwks' } },
        access: { 'GET /signed': { modes: ['sign', 'api_key'], roles: [] } },
      },
      { importModule: (name) => (name === '@authlayer/sign' ? Promise.resolve(sign) : import(name)) },
    );
    const send = async () =>
      (await judge(engine.current(), requestTo('GET', '/signed', { 'x-signature': 'good' }))).outcome;
    failNext = true;
    expect(await send()).toMatchObject({ pass: false, answer: { status: 500 } });
    expect(logger.text).toContain('error: the GET /signed handler failed (Error)');
    expect(await send()).toMatchObject({ pass: true, context: { method: 'sign' } });
    // Made once: the next request is judged by the same combination.
    expect(await send()).toMatchObject({ pass: true, context: { method: 'sign' } });
  });
});
